//! What an audit reports: the ROC with its confidence band against the privacy region, the
//! lower bounds on ε (multi-run and one-run) against every accountant's ε, and one sentence
//! that says what was shown.

use super::alice::{alice_result, AliceResult};
use super::region::{check, what_runs_can_show, RegionCheck, Verdict, WhatRunsCanShow};
use super::stats::{
    clopper_pearson, epsilon_lower, one_run_epsilon, rate_consistent, roc_counts, LogFactorials,
    LowerBound,
};
use super::summary::{lower_text, sentence, upper_text, Said};
use super::tradeoff::TradeOff;
use super::{AuditPlan, Mechanics, RunScores, Threat};
use crate::config::fmt_num;
use crate::privacy::accountant::{
    compose, Accountant, AccountantName, EpsilonReport, PerAccountant,
};
use crate::train::Draws;
use serde::Serialize;
use std::collections::BTreeMap;

/// The false-positive rates at which the attack's TPR is reported.
pub const REPORTED_FPRS: [f64; 4] = [0.01, 0.05, 0.1, 0.2];
/// Points of the ROC and of the curves drawn.
const ROC_POINTS: usize = 300;
const CURVE_POINTS: usize = 160;
/// One-sided tail of each Clopper–Pearson end (two-sided 95%).
const TAIL: f64 = 0.025;
/// Guesses per side tried by the one-run audit, as fractions of m (Bonferroni over them).
const ONE_RUN_GUESSES: [f64; 4] = [0.02, 0.05, 0.1, 0.25];

/// The one-run audit (Steinke, Nasr & Jagielski 2023).
#[derive(Clone, Debug, Serialize)]
pub struct OneRunResult {
    pub canaries: usize,
    pub members: usize,
    /// The best of the guess counts tried: how many guesses, how many right.
    pub guesses: usize,
    pub correct: usize,
    /// ε_lower at 95% (Bonferroni over the guess counts tried).
    pub eps_lower: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct AuditResult {
    pub threat: Threat,
    /// Runs with the canary, and as many without.
    pub runs: usize,
    pub steps: u64,
    /// The mechanism the curve and ε_upper analyse, and the one the runs trained (read from
    /// each run's trainer; the first that differs from `planned` if any does): equal in a
    /// sound audit, since the two worlds must differ by the canary alone. `trained.draws` sums
    /// every run's lots: their rate must be one q could give ([`rate_consistent`]).
    pub planned: Mechanics,
    pub trained: Mechanics,
    /// What of the run audited the attack does not reach (it may then fall short of the curve
    /// by that much; it can never pass it).
    pub gaps: Vec<String>,
    pub delta: f64,
    /// ε_lower at 95% from the multi-run attack, and how it was found.
    pub eps_lower: f64,
    pub lower_bound: LowerBound,
    /// ε of every accountant that bounds the run audited (PLD's is the tightest; naive and
    /// strong composition only in the exact per-step convention, the others are no bounds).
    pub eps_upper: BTreeMap<&'static str, f64>,
    /// ε_lower and the PLD accountant's ε (the region drawn) as the summary words them: a
    /// lower bound rounded down, an upper bound up. The lessons quote these (#53 §4: the
    /// lesson and the summary once said 3.67 and 3.66 of one audit).
    pub said: Said,
    /// Whether ε_lower is above the PLD accountant's ε: the attack proved more than was
    /// promised (the region's verdict is then `Outside`). Decided here once; the audit lesson
    /// words it and never compares the two numbers itself.
    pub lower_above_pld: bool,
    /// The attack's ROC as [fpr, tpr], and whether it stays in the privacy region by the 95%
    /// simultaneous band drawn around it (`region`).
    pub roc: Vec<[f64; 2]>,
    pub region: RegionCheck,
    /// When ε_lower is 0: what these runs could show at most, and what it would take.
    pub could_show: Option<WhatRunsCanShow>,
    /// The privacy region's edge for the direction tested (canary in vs out), and the
    /// symmetric one ε is reported from, as [fpr, tpr].
    pub theory: Vec<[f64; 2]>,
    pub theory_symmetric: Vec<[f64; 2]>,
    pub tpr_at_fpr: BTreeMap<String, f64>,
    pub tpr_interval_at_fpr: BTreeMap<String, [f64; 2]>,
    /// The 95% interval of the true FPR of the threshold used at each reported FPR.
    pub fpr_interval_at_fpr: BTreeMap<String, [f64; 2]>,
    pub theory_tpr_at_fpr: BTreeMap<String, f64>,
    pub one_run: Option<OneRunResult>,
    /// When the canary was a training example: the Alice view (`alice`).
    pub alice: Option<AliceResult>,
    /// What was shown, in one sentence.
    pub summary: String,
    /// The audit's outputs are computed from the data without noise.
    pub not_private: Vec<String>,
}

fn key(f: f64) -> String {
    fmt_num(f)
}

/// The one-run audit's bound from per-canary scores: guess "in" for the k highest scores and
/// "out" for the k lowest, for each k tried; the best bound, at 95% overall.
fn one_run(scores: &[f64], member: &[bool], delta: f64) -> OneRunResult {
    let m = scores.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let level = 0.05 / ONE_RUN_GUESSES.len() as f64;
    let mut best = (0usize, 0usize, 0.0f64);
    for frac in ONE_RUN_GUESSES {
        let k = ((frac * m as f64).round() as usize).clamp(1, m / 2);
        let correct = order[..k].iter().filter(|&&i| member[i]).count()
            + order[m - k..].iter().filter(|&&i| !member[i]).count();
        let eps = one_run_epsilon(m, 2 * k, correct, delta, level);
        if eps >= best.2 {
            best = (2 * k, correct, eps);
        }
    }
    OneRunResult {
        canaries: m,
        members: member.iter().filter(|&&b| b).count(),
        guesses: best.0,
        correct: best.1,
        eps_lower: best.2,
    }
}

/// Combines the runs' scores (in any order) into the audit's report.
pub fn summarize(plan: &AuditPlan, runs: &[RunScores]) -> AuditResult {
    let multi = 2 * plan.spec.runs;
    let (mut scores_in, mut scores_out) = (Vec::new(), Vec::new());
    let mut sorted: Vec<&RunScores> = runs.iter().filter(|r| r.index < multi).collect();
    sorted.sort_by_key(|r| r.index);
    for r in sorted {
        match r.member.first() {
            Some(true) => scores_in.push(r.scores[0]),
            _ => scores_out.push(r.scores[0]),
        }
    }
    let delta = plan.cfg.delta;
    let (n_in, n_out) = (scores_in.len().max(1), scores_out.len().max(1));
    let lf = LogFactorials::new(n_in.max(n_out));
    let counts = roc_counts(&scores_in, &scores_out);
    let stride = counts.len().div_ceil(ROC_POINTS).max(1);
    let kept: Vec<_> = counts
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i == counts.len() - 1)
        .map(|(_, c)| *c)
        .collect();
    let roc = kept
        .iter()
        .map(|c| [c.fp as f64 / n_out as f64, c.tp as f64 / n_in as f64])
        .collect();
    let parts = plan.mechanism.after_steps(plan.steps);
    let mut region = TradeOff::of(&parts);
    let (theory, theory_symmetric) = region.curves(CURVE_POINTS);
    let (mut tpr_at, mut tpr_int, mut fpr_int, mut theory_at) = (
        BTreeMap::new(),
        BTreeMap::new(),
        BTreeMap::new(),
        BTreeMap::new(),
    );
    for f in REPORTED_FPRS {
        let best = counts
            .iter()
            .filter(|c| c.fp as f64 <= f * n_out as f64)
            .max_by_key(|c| c.tp)
            .copied()
            .unwrap_or(counts[0]);
        let (lo, hi) = clopper_pearson(&lf, best.tp, n_in, TAIL);
        let (flo, fhi) = clopper_pearson(&lf, best.fp, n_out, TAIL);
        tpr_at.insert(key(f), best.tp as f64 / n_in as f64);
        tpr_int.insert(key(f), [lo, hi]);
        fpr_int.insert(key(f), [flo, fhi]);
        theory_at.insert(key(f), region.tpr(f));
    }
    let lower_bound = epsilon_lower(&scores_in, &scores_out, delta);
    let mut region_check = check(&region, &counts, &kept, n_in, n_out, &lower_bound);
    let could_show =
        (lower_bound.epsilon == 0.0).then(|| what_runs_can_show(&region, plan.spec.runs, delta));
    // The analytic accountants here; PLD's ε from the composition the region came from.
    let amp = plan.cfg.amplification;
    let report: EpsilonReport = PerAccountant::try_from_fn(|a| match a {
        AccountantName::Pld => Ok(region.epsilon(delta)),
        _ => compose::epsilon(Accountant::of(a, amp), &parts, delta),
    })
    .expect("a validated run has valid accountant inputs");
    // Only valid upper bounds: naive and strong composition in the paper's or the classical
    // convention are not bounds (the rest of the lab labels them optimistic), so they are left
    // out rather than listed beside the audit as if they were.
    let loose = |a: AccountantName| matches!(a, AccountantName::Naive | AccountantName::Strong);
    let eps_upper: BTreeMap<&'static str, f64> = report
        .iter()
        .filter(|(a, _)| amp.is_valid_bound() || !loose(*a))
        .map(|(a, &v)| (a.name(), v))
        .collect();
    let one = runs
        .iter()
        .find(|r| r.index == multi && plan.spec.canaries > 0)
        .map(|r| one_run(&r.scores, &r.member, delta));
    let pld = report.pld;
    let lower_above_pld = lower_bound.epsilon > pld;
    if lower_above_pld && region_check.verdict != Verdict::Outside {
        // Its box is above the (ε, δ) line the PLD's ε draws, so above the region: say so.
        let fpr_hi = region_check.evidence[1];
        region_check.verdict = Verdict::Outside;
        region_check.outside_at = Some([fpr_hi, fpr_hi]);
    }
    let alice = plan.alice.as_ref().map(|a| {
        let roc = (&counts[..], region_check.verdict);
        alice_result(a, &scores_in, &scores_out, roc, &region, pld)
    });
    let planned = plan.planned();
    let mut trained = runs
        .iter()
        .map(|r| r.trained)
        .find(|t| !t.same_plan(&planned))
        .unwrap_or_else(|| runs.first().map_or(planned, |r| r.trained));
    trained.draws = runs.iter().fold(Draws::default(), |all, r| Draws {
        members: all.members + r.trained.draws.members,
        drawn: all.drawn + r.trained.draws.drawn,
    });
    let mut summary = sentence(
        plan.spec.threat,
        lower_bound.epsilon,
        pld,
        plan.spec.runs,
        &region_check,
        could_show.as_ref(),
    );
    let gaps = gaps(plan);
    if !gaps.is_empty() {
        summary = format!(
            "{summary} What this attack does not reach: {}.",
            gaps.join("; ")
        );
    }
    let Draws { members, drawn } = trained.draws;
    if !rate_consistent(drawn, members, planned.q) {
        summary = format!(
            "The runs' lots took {} of their members ({drawn} of {members} chances), not q = {}: the sampler drew another mechanism than the one analysed, so this audit shows nothing about it. {summary}",
            fmt_num(drawn as f64 / members as f64),
            fmt_num(planned.q),
        );
    }
    if !trained.same_plan(&planned) {
        summary = format!(
            "The runs trained another mechanism (q = {}, {} steps) than the one analysed (q = {}, {} steps), so this audit shows nothing about it. {summary}",
            fmt_num(trained.q),
            trained.steps,
            fmt_num(planned.q),
            planned.steps
        );
    }
    AuditResult {
        threat: plan.spec.threat,
        runs: plan.spec.runs,
        steps: plan.steps,
        planned,
        trained,
        gaps,
        delta,
        eps_lower: lower_bound.epsilon,
        said: Said {
            eps_lower: lower_text(lower_bound.epsilon),
            pld: upper_text(pld),
        },
        lower_above_pld,
        lower_bound,
        eps_upper,
        roc,
        region: region_check,
        could_show,
        theory,
        theory_symmetric,
        tpr_at_fpr: tpr_at,
        tpr_interval_at_fpr: tpr_int,
        fpr_interval_at_fpr: fpr_int,
        theory_tpr_at_fpr: theory_at,
        one_run: one,
        alice,
        summary,
        not_private: vec![
            "the audit: it trains many models on the data and releases how they differ, without noise"
                .into(),
        ],
    }
}

/// What the attack cannot see of the run audited, in words (none for flat or per-layer
/// clipping without DP-PCA, where the worst case's ROC is the mechanism's curve).
fn gaps(plan: &AuditPlan) -> Vec<String> {
    let mut gaps = Vec::new();
    if plan.spec.threat == Threat::WorstCase && plan.cfg.adaptive_clipping() {
        gaps.push(
            "adaptive clipping: the gradient canary counts in each lot's noisy unclipped count, \
             but the attack does not score that count (its other members are unknown to the \
             adversary), so it may fall a little short of the curve"
                .into(),
        );
    }
    if plan.spec.threat == Threat::WorstCase && plan.cfg.pca.is_some() {
        gaps.push(
            "DP-PCA: a gradient canary is no row of the data, so it takes no part in the \
             projection; the curve counts PCA's release too, so the attack falls short of it"
                .into(),
        );
    }
    gaps
}
