//! A file of one's own made ready to train on privately: its numeric columns' ranges stated
//! (`stated`) or estimated with noise (`bounds`), the rows split and scaled (`split`), and the
//! refusals that say what is missing and what was spent (`refusal`), on a leaf of shared words
//! (`types`). The layers inside: `types` < `refusal` < `bounds`, `stated` < `split`.

pub mod bounds;
mod refusal;
pub mod split;
pub mod stated;
pub mod types;

pub use types::{written_name, Range};
