//! The privacy side of DP-SGD: the sanitizer (clip and noise), Poisson-sampled lots, and the
//! accountants that turn (q, σ, steps, δ) into ε. The sanitizer never knows about ε; the
//! accountants never see a gradient.

pub mod accountant;
pub mod adaptive;
pub mod noise_rng;
pub mod normals;
pub mod sampling;
pub mod sanitizer;
pub mod why;
