//! What memory would cost at 10,000 people, from what it costs per person now.
//!
//! The method, as BENCHMARKS.md ("What memory costs") documents it: every figure measured over the
//! company's people is divided by them and multiplied by 10,000, except what does not grow with
//! the people:
//! - the bots' rows grow with the bots and their wakes, so they are held as measured;
//! - a run's block is bounded by its layers' budgets whatever the company's size, so its tokens per
//!   run (the percentiles) are held, and only the number of runs grows;
//! - the nightly job works within memory's daily budget, so its spend is what it would want, capped
//!   at the budget; a job that stopped for the budget while measuring makes the projection low.
//!
//! A table's bytes grow from what it takes with no rows (the first page of each of its b-trees):
//! that floor is held, and only what is past it is divided by the people, so a small company's
//! nearly empty tables do not project as if each page were full.
//!
//! Per-day figures are averaged over the days measured (from the first day with any work through
//! today, at most 30). Everything else is linear in the people: the cores grow with the teams, which
//! grow with the people; a person's cards, lists and lessons are their own.

use super::{Layer, LayerFigures, WindowFigures};
use serde::{Deserialize, Serialize};

/// The size the projection is made for.
pub const PROJECTED_PEOPLE: u64 = 10_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectedLayer {
    pub layer: Layer,
    /// Grown with the people, or held as measured.
    pub grows_with_people: bool,
    pub rows: u64,
    pub bytes: u64,
    /// Rows written a day, at that size.
    pub added_per_day: u64,
    /// The measured figures per person, that the layer grew from: its rows, and its bytes past
    /// what its tables take with no rows.
    pub rows_per_person: f64,
    pub bytes_per_person: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    pub people: u64,
    /// The people the figures were measured over.
    pub measured_people: u64,
    pub days_measured: u32,
    pub layers: Vec<ProjectedLayer>,
    pub memory_bytes: u64,
    pub runs_per_day: u64,
    /// Held: a block is bounded per run.
    pub block_p50: Option<u32>,
    pub block_p95: Option<u32>,
    /// The tokens of every run's block in a day.
    pub block_tokens_per_day: u64,
    pub checks_per_day: u64,
    pub check_reads_per_day: u64,
    pub run_millicents_per_day: u64,
    pub nightly_calls_per_day: u64,
    /// What the nightly job would spend a day without a budget.
    pub nightly_wanted_millicents: u64,
    /// Within memory's daily budget.
    pub nightly_millicents_per_day: u64,
    pub budget_millicents: u64,
}

/// Projects the measured figures to `people`; `None` with nobody measured.
pub fn project(
    measured_people: u64,
    layers: &[LayerFigures],
    window: &WindowFigures,
    people: u64,
) -> Option<Projection> {
    if measured_people == 0 {
        return None;
    }
    let scale = people as f64 / measured_people as f64;
    let days = f64::from(window.days_measured.max(1));
    let per_day = |total: u64| (total as f64 / days * scale).round() as u64;
    let layers: Vec<ProjectedLayer> = layers
        .iter()
        .map(|l| {
            let grows = l.layer.grows_with_people();
            let by = if grows { scale } else { 1.0 };
            let grown = l.bytes.saturating_sub(l.fixed_bytes);
            ProjectedLayer {
                layer: l.layer,
                grows_with_people: grows,
                rows: (l.rows as f64 * by).round() as u64,
                bytes: l.bytes.min(l.fixed_bytes) + (grown as f64 * by).round() as u64,
                added_per_day: (l.added as f64 / days * by).round() as u64,
                rows_per_person: l.rows as f64 / measured_people as f64,
                bytes_per_person: grown as f64 / measured_people as f64,
            }
        })
        .collect();
    let nightly_wanted = per_day(window.nightly_millicents);
    Some(Projection {
        people,
        measured_people,
        days_measured: window.days_measured,
        memory_bytes: layers.iter().map(|l| l.bytes).sum(),
        layers,
        runs_per_day: per_day(window.runs),
        block_p50: window.block_p50,
        block_p95: window.block_p95,
        block_tokens_per_day: per_day(window.block_tokens),
        checks_per_day: per_day(window.checks),
        check_reads_per_day: per_day(window.check_reads),
        run_millicents_per_day: per_day(window.run_millicents),
        nightly_calls_per_day: per_day(window.nightly_calls),
        nightly_wanted_millicents: nightly_wanted,
        nightly_millicents_per_day: nightly_wanted.min(window.budget_millicents),
        budget_millicents: window.budget_millicents,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(layer: Layer, rows: u64, bytes: u64, added: u64) -> LayerFigures {
        LayerFigures { layer, rows, bytes, fixed_bytes: 0, added, tables: vec![] }
    }

    fn window(days: u32) -> WindowFigures {
        WindowFigures {
            days_measured: days,
            runs: 300,
            checks: 60,
            check_reads: 90,
            with_block: 240,
            block_tokens: 240 * 1_500,
            block_p50: Some(1_400),
            block_p95: Some(3_900),
            nightly_calls: 30,
            nightly_millicents: 3_000,
            other_memory_millicents: 0,
            run_model_calls: 600,
            run_model_tokens: 1_000_000,
            run_millicents: 60_000,
            budget_millicents: 200_000,
        }
    }

    #[test]
    fn what_grows_with_the_people_is_scaled_and_the_bots_rows_are_held() {
        let layers = [layer(Layer::Cards, 3_000, 1_000_000, 600), layer(Layer::Bots, 50, 40_000, 30)];
        let p = project(10, &layers, &window(30), 10_000).unwrap();
        assert_eq!((p.people, p.measured_people, p.days_measured), (10_000, 10, 30));
        let cards = &p.layers[0];
        assert!(cards.grows_with_people);
        assert_eq!((cards.rows, cards.bytes, cards.added_per_day), (3_000_000, 1_000_000_000, 20_000));
        assert_eq!((cards.rows_per_person, cards.bytes_per_person), (300.0, 100_000.0));
        let bots = &p.layers[1];
        assert!(!bots.grows_with_people);
        assert_eq!((bots.rows, bots.bytes, bots.added_per_day), (50, 40_000, 1));
        assert_eq!(p.memory_bytes, 1_000_040_000);
    }

    #[test]
    fn what_a_table_takes_with_no_rows_is_held_and_only_the_rest_grows() {
        // Four pages of 4 KiB with no rows, and 8 KiB past them for 10 people.
        let cards = LayerFigures { fixed_bytes: 16_384, ..layer(Layer::Cards, 40, 24_576, 0) };
        let p = project(10, &[cards], &window(30), 10_000).unwrap();
        assert_eq!(p.layers[0].bytes, 16_384 + 8_192 * 1_000);
        assert_eq!(p.layers[0].bytes_per_person, 819.2);
        // Empty tables stay as they are.
        let empty = LayerFigures { fixed_bytes: 20_480, ..layer(Layer::WhosWho, 0, 20_480, 0) };
        assert_eq!(project(10, &[empty], &window(30), 10_000).unwrap().layers[0].bytes, 20_480);
    }

    #[test]
    fn per_day_figures_are_averaged_over_the_days_measured_and_scaled() {
        let p = project(10, &[], &window(30), 10_000).unwrap();
        // 300 runs over 30 days by 10 people: a run a person a day.
        assert_eq!(p.runs_per_day, 10_000);
        assert_eq!((p.checks_per_day, p.check_reads_per_day), (2_000, 3_000));
        assert_eq!(p.block_tokens_per_day, 240 * 1_500 * 1_000 / 30);
        assert_eq!((p.block_p50, p.block_p95), (Some(1_400), Some(3_900)), "a block is bounded per run");
        assert_eq!(p.run_millicents_per_day, 2_000_000);
        assert_eq!(p.nightly_calls_per_day, 1_000);
        // 100 thousandths of a cent a night for 10 people would be 100,000 for 10,000: within 2 dollars.
        assert_eq!((p.nightly_wanted_millicents, p.nightly_millicents_per_day), (100_000, 100_000));
        // Measured over 3 days, the same totals are ten times as much a day, past the budget.
        let p = project(10, &[], &window(3), 10_000).unwrap();
        assert_eq!(p.runs_per_day, 100_000);
        assert_eq!((p.nightly_wanted_millicents, p.nightly_millicents_per_day), (1_000_000, 200_000));
    }

    #[test]
    fn nobody_measured_projects_nothing() {
        assert_eq!(project(0, &[], &window(30), 10_000), None);
    }
}
