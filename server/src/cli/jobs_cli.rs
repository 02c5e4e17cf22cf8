//! `engram jobs run nightly [--date D]`: runs a timed job once by hand, for operators and tests.
//! It claims its day as the timed run does, so it never runs a day twice.

use crate::settings::Settings;
use clap::Subcommand;
use engine::learning::nightly::NightlyOutcome;
use engine::services::Services;
use engine::{Clock, SystemClock};
use std::io::Write;
use std::sync::Arc;

/// `engram jobs …`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Jobs {
    /// Run one timed job once, now
    #[command(subcommand)]
    Run(Job),
}

#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Job {
    /// The nightly job: lessons from the runs since it last read each person's
    Nightly {
        /// The day to run it for, in the company's zone (YYYY-MM-DD); today when left out
        #[arg(long, value_name = "DATE")]
        date: Option<String>,
    },
}

pub async fn run(settings: &Settings, jobs: &Jobs, out: &mut impl Write) -> Result<(), String> {
    let Jobs::Run(Job::Nightly { date }) = jobs;
    let date = match date {
        Some(d) => Some(
            chrono::NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d")
                .map_err(|_| format!("{d:?} is not a date: write it as YYYY-MM-DD"))?,
        ),
        None => None,
    };
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    // On the demo company with no provider set up, the demo's scripted model answers, as it does
    // under `engram demo`; it lives as long as this command.
    let crate::cli::Opened { store, settings, demo_model: _demo_model } =
        crate::cli::open_for_command(settings).await?;
    let Services { nightly, .. } = Services::build(store, clock, crate::startup::adapters(&settings));
    match nightly.run_now(date).await.map_err(|e| e.to_string())? {
        NightlyOutcome::Ran(report) => writeln!(out, "{}", report.summary()),
        NightlyOutcome::AlreadyRan(day) => writeln!(out, "The nightly job already ran for {day}; nothing was done."),
        NightlyOutcome::NotDue => writeln!(out, "The nightly job is not due."),
    }
    .map_err(|e| e.to_string())
}
