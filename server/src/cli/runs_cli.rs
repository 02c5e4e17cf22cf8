//! `engram ask --as alice "Sales Assistant" "what are our sales stages"`: asks an agent as a
//! person, waits for the answer and its check, and prints them with the Memory used lines.

use crate::settings::Settings;
use engine::runs::service::{Asker, RunView};
use engine::services::Services;
use engine::{Clock, SystemClock};
use std::io::Write;
use std::sync::Arc;

/// Asks `agent` the question as `who` (an email, or the part before the @) and prints the answer.
pub async fn ask(
    settings: &Settings,
    who: &str,
    agent: &str,
    question: &str,
    out: &mut impl Write,
) -> Result<(), String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    // On the demo company with no real provider set up, the demo's scripted model answers, as it
    // does under `engram demo`; it lives as long as this command.
    let crate::cli::Opened { store, settings, demo_model: _demo_model } =
        crate::cli::open_for_command(settings).await?;
    let Services { runs, .. } = Services::build(store.clone(), clock, crate::startup::adapters(&settings));
    let person = crate::cli::find_person(store.as_ref(), who).await?;
    // Nobody watches a command's answer: it is checked before it is printed.
    let asker = Asker { person, unwatched: true };
    let agent = runs.find_agent(&asker.person, agent).await.map_err(|e| e.to_string())?;
    let started = runs.ask(&asker, agent, question).await.map_err(|e| e.to_string())?;
    let run = runs.answering.execute(started.run).await.map_err(|e| e.to_string())?;
    print_run(&run, out).map_err(|e| e.to_string())?;
    match run.failure {
        Some(why) => Err(format!("{why} (try again with POST /api/runs/{}/retry)", run.id)),
        None => Ok(()),
    }
}

fn print_run(run: &RunView, out: &mut impl Write) -> std::io::Result<()> {
    if let Some(answer) = &run.answer {
        writeln!(out, "{answer}")?;
    }
    if let Some(note) = &run.model_note {
        writeln!(out, "({note})")?;
    }
    // A check that could not check is already in the answer, as "Not checked: <reason>".
    if let Some(check) = run.check.as_ref().filter(|c| c.state == "checked" || c.state == "changed") {
        writeln!(out)?;
        writeln!(out, "{}", check.words)?;
        for line in &check.lines {
            writeln!(out, "  {line}")?;
        }
    }
    for step in run.steps.iter().filter(|s| s.kind == "memory_used") {
        writeln!(out)?;
        writeln!(out, "Memory used: {}", step.line)?;
        for w in &step.words {
            writeln!(out, "  {w}")?;
        }
    }
    Ok(())
}
