use super::load_operations::load_operations;
use crate::components::{loaded, when};
use engine::operations::words::{bytes, cents, count, past_limit_line, percentiles};
use engine::operations::{LayerFigures, OperationsReport, Projection};
use leptos::prelude::*;

/// Company → Operations: a page that only reads, the same with JavaScript on and off.
#[component]
pub fn OperationsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_operations());
    view! {
        <h1>"Operations"</h1>
        {loaded(data, |r| view! { <Report r/> })}
    }
}

#[component]
fn Report(r: OperationsReport) -> impl IntoView {
    let per_person = match r.bytes_per_person {
        Some(b) => format!("{} per person", bytes(b)),
        None => "nobody to divide it by".into(),
    };
    let past = match &r.oldest_past_limit {
        Some(p) => past_limit_line(p, r.at),
        None => "None: every card is within its connector's hard limit.".into(),
    };
    let w = r.window.clone();
    let mut days = r.days.clone();
    days.reverse();
    view! {
        <p class="lead">
            "What memory costs, in counts and sizes: never what it says. Measured " {when(&r.at)}
            "; days are in the company's zone, " {r.time_zone.clone()} "."
        </p>
        <section class="ops-storage">
            <h2>"Storage"</h2>
            <ul class="ops-summary">
                <li class="people">"People: " {count(r.people)}</li>
                <li class="memory-bytes">
                    "Memory on disk: " {bytes(r.memory_bytes)} " of a " {bytes(r.database_bytes)} " database; "
                    {per_person}
                </li>
            </ul>
            <table class="ops-layers">
                <thead><tr><th>"Layer"</th><th>"Rows"</th><th>"On disk"</th><th>"Written in the last 30 days"</th></tr></thead>
                <tbody>{r.layers.iter().map(|l| view! { <LayerRow l=l.clone()/> }).collect_view()}</tbody>
            </table>
            <details class="ops-tables">
                <summary>"The tables of each layer"</summary>
                <table>
                    <thead><tr><th>"Layer"</th><th>"Table"</th><th>"Rows"</th><th>"On disk"</th><th>"Written in the last 30 days"</th></tr></thead>
                    <tbody>
                        {r.layers.iter().flat_map(|l| l.tables.clone()).map(|t| view! {
                            <tr>
                                <td>{t.layer.words()}</td>
                                <td>{t.table}</td>
                                <td>{count(t.rows)}</td>
                                <td>{bytes(t.bytes)}</td>
                                <td>{t.added.map(count).unwrap_or_else(|| "not dated".into())}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </details>
            <p class="measure">"Bytes are " {r.bytes_measure.clone()} ". Rows written are counted in the tables whose rows carry a time; a card counts when it was last read."</p>
            <p class="measured-at">
                "The layers were measured " {r.measured_at.as_ref().map(when).unwrap_or_else(|| "just now".into())}
                ": counting every row of memory costs what memory holds, so it is done once a day, from 03:00 in the company's zone, and this page reads that measure. engram ops report, on the host, measures them as it runs."
            </p>
        </section>
        <section class="ops-days">
            <h2>"Per day"</h2>
            <p class="ops-window">
                "The last 30 days: " {count(w.runs)} " runs, " {count(w.with_block)} " given a block (p50 / p95 "
                {percentiles(w.block_p50, w.block_p95)} "); " {count(w.checks)} " checks and " {count(w.check_reads)}
                " reads; the nightly job " {count(w.nightly_calls)} " calls, " {cents(w.nightly_millicents)}
                "; other memory calls " {cents(w.other_memory_millicents)} "; runs' model " {count(w.run_model_calls)}
                " calls, " {count(w.run_model_tokens)} " tokens, " {cents(w.run_millicents)} "."
            </p>
            <table class="ops-days">
                <thead>
                    <tr>
                        <th>"Day"</th><th>"Runs"</th><th>"Given a block"</th><th>"Block tokens p50 / p95"</th>
                        <th>"Checks"</th><th>"Reads by checks"</th><th>"Nightly calls"</th><th>"Nightly spend"</th>
                        <th>"Runs' model tokens"</th><th>"Runs' model spend"</th>
                    </tr>
                </thead>
                <tbody>
                    {days.into_iter().map(|d| {
                        let day = d.day.clone();
                        view! {
                        <tr data-day=day>
                            <td>{d.day}</td>
                            <td>{count(d.runs)}</td>
                            <td>{count(d.with_block)}</td>
                            <td>{percentiles(d.block_p50, d.block_p95)}</td>
                            <td>{count(d.checks)}</td>
                            <td>{count(d.check_reads)}</td>
                            <td>{count(d.nightly_calls)}</td>
                            <td>{cents(d.nightly_millicents)}</td>
                            <td>{count(d.run_model_tokens)}</td>
                            <td>{cents(d.run_millicents)}</td>
                        </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </section>
        <section class="ops-past-limit">
            <h2>"Oldest card past its hard limit"</h2>
            <p>{past}</p>
        </section>
        {match r.projection {
            Some(p) => view! { <ProjectionSection p/> }.into_any(),
            None => view! {
                <section class="ops-projection"><h2>"At 10,000 people"</h2><p>"No projection: nobody to measure per person."</p></section>
            }.into_any(),
        }}
    }
}

#[component]
fn LayerRow(l: LayerFigures) -> impl IntoView {
    view! {
        <tr data-layer=l.layer.as_str()>
            <td>{l.layer.words()}</td>
            <td>{count(l.rows)}</td>
            <td>{bytes(l.bytes)}</td>
            <td>{count(l.added)}</td>
        </tr>
    }
}

#[component]
fn ProjectionSection(p: Projection) -> impl IntoView {
    let nightly = if p.nightly_wanted_millicents > p.budget_millicents {
        format!(
            "{} (it would want {}: past the daily budget of {})",
            cents(p.nightly_millicents_per_day),
            cents(p.nightly_wanted_millicents),
            cents(p.budget_millicents)
        )
    } else {
        format!("{} (within the daily budget of {})", cents(p.nightly_millicents_per_day), cents(p.budget_millicents))
    };
    view! {
        <section class="ops-projection">
            <h2>"At " {count(p.people)} " people"</h2>
            <p class="method">
                "Projected from the " {count(p.measured_people)} " people measured over " {count(u64::from(p.days_measured))}
                " days: each figure per person, times " {count(p.people)}
                ". The bots' rows are held as they are (they grow with the bots, not the people), and so is a run's block, which its layers' budgets bound whatever the company's size; the nightly job's spend stops at the daily budget."
            </p>
            <p class="projected-bytes">"Memory on disk: " {bytes(p.memory_bytes)}</p>
            <table class="ops-projected-layers">
                <thead><tr><th>"Layer"</th><th>"Rows"</th><th>"On disk"</th><th>"Written a day"</th><th>"Measured per person"</th></tr></thead>
                <tbody>
                    {p.layers.iter().map(|l| {
                        let per = if l.grows_with_people {
                            format!("{:.1} rows, {}", l.rows_per_person, bytes(l.bytes_per_person.round() as u64))
                        } else {
                            "held as measured".to_string()
                        };
                        view! {
                            <tr data-layer=l.layer.as_str()>
                                <td>{l.layer.words()}</td>
                                <td>{count(l.rows)}</td>
                                <td>{bytes(l.bytes)}</td>
                                <td>{count(l.added_per_day)}</td>
                                <td>{per}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <ul class="ops-projected-day">
                <li class="runs">"Runs a day: " {count(p.runs_per_day)}</li>
                <li>"Block tokens a day: " {count(p.block_tokens_per_day)} " (p50 / p95 " {percentiles(p.block_p50, p.block_p95)} " a run, held)"</li>
                <li>"Checks a day: " {count(p.checks_per_day)} ", reading " {count(p.check_reads_per_day)} " records"</li>
                <li>"Runs' model spend a day: " {cents(p.run_millicents_per_day)}</li>
                <li class="nightly">"Nightly job a day: " {count(p.nightly_calls_per_day)} " calls, " {nightly}</li>
            </ul>
        </section>
    }
}
