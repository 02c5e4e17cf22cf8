use super::load_people_import::{load_people_import, DryRun, PeopleImportData};
use super::{ImportResult, APPLY, UPLOAD};
use crate::components::{loaded, NoticeLine};
use crate::paths::PEOPLE;
use engine::org::import::{people_count, thousands};
use leptos::prelude::*;

/// Import people, for admins: a CSV file's dry run, then the people added and their invite links.
#[component]
pub fn PeopleImportPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_people_import());
    view! {
        <h1>"Import people"</h1>
        <p><a href=PEOPLE>"Back to People"</a></p>
        {loaded(data, |d| view! { <PeopleImport data=d/> })}
    }
}

#[component]
fn PeopleImport(data: PeopleImportData) -> impl IntoView {
    let PeopleImportData { notice, dry_run, pasted, done } = data;
    view! {
        <NoticeLine notice/>
        {done.map(|d| view! { <Added done=d/> })}
        {dry_run.map(|d| view! { <DryRunView dry_run=d/> })}
        <section class="import-file" aria-label="Check a CSV file">
            <h2>"Check a CSV file"</h2>
            <p>
                "The first line names the columns: name, email, team and role, in any order. "
                "Each person joins the team named on their line; the role may be left empty, and "
                "they then take their team's. Nothing is added until you confirm the dry run."
            </p>
            <form method="post" action=UPLOAD enctype="multipart/form-data" class="import-upload">
                <label>"CSV file " <input type="file" name="file" accept=".csv,text/csv"/></label>
                <label>"Or paste the CSV "
                    <textarea name="text" rows="8" placeholder="name,email,team,role">{pasted}</textarea>
                </label>
                <p class="hint">"A chosen file is used rather than pasted text."</p>
                <button type="submit">"Check the file"</button>
            </form>
        </section>
    }
}

#[component]
fn DryRunView(dry_run: DryRun) -> impl IntoView {
    let DryRun { source, plan, check } = dry_run;
    let adding = plan.to_add.len();
    let summary = format!(
        "Dry run of {source}: {} to add, {} refused. Nothing has been added yet.",
        people_count(adding),
        match plan.refused.len() {
            1 => "1 row".to_string(),
            n => format!("{} rows", thousands(n)),
        }
    );
    let button = if adding == 1 { "Add 1 person".to_string() } else { format!("Add {} people", thousands(adding)) };
    view! {
        <section class="import-dry-run" aria-label="Dry run">
            <h2>"Dry run"</h2>
            <p class="summary">{summary}</p>
            {(!plan.refused.is_empty()).then(|| view! {
                <h3>"Refused rows"</h3>
                <ul class="refused-rows">
                    {plan.refused.iter().map(|r| view! { <li>{r.sentence()}</li> }).collect_view()}
                </ul>
            })}
            {(adding > 0).then(|| view! {
                <h3>"People to add"</h3>
                <table class="people-to-add">
                    <thead><tr><th>"Line"</th><th>"Name"</th><th>"Email"</th><th>"Team"</th><th>"Department role"</th></tr></thead>
                    <tbody>
                        {plan.to_add.iter().map(|r| view! {
                            <tr>
                                <td>{r.line}</td>
                                <td>{r.name.clone()}</td>
                                <td>{r.email.clone()}</td>
                                <td>{r.team_name.clone()}</td>
                                <td>{r.role_name.clone().unwrap_or_else(|| "from their team".to_string())}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <form method="post" action=APPLY class="import-apply">
                    <input type="hidden" name="check" value=check.clone()/>
                    <button type="submit">{button.clone()}</button>
                </form>
            })}
            {(adding == 0).then(|| view! { <p>"No one in this file can be added. Correct the refused rows and check the file again."</p> })}
        </section>
    }
}

#[component]
fn Added(done: ImportResult) -> impl IntoView {
    view! {
        <section class="import-done" aria-label="People added">
            <h2>{format!("Added {}", people_count(done.added.len()))}</h2>
            <p>{format!(
                "Copy each person's invite link now and send it to them yourself: the links are shown only this once. \
                 Each works once, for {} days, and lets its person set their password.",
                done.valid_days
            )}</p>
            <table class="invite-links">
                <thead><tr><th>"Name"</th><th>"Email"</th><th>"Invite link"</th></tr></thead>
                <tbody>
                    {done.added.iter().map(|p| view! {
                        <tr>
                            <td>{p.name.clone()}</td>
                            <td>{p.email.clone()}</td>
                            <td><code class="invite-link">{p.link.clone()}</code></td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            {(!done.refused.is_empty()).then(|| view! {
                <h3>"Rows not added"</h3>
                <ul class="refused-rows">
                    {done.refused.iter().map(|r| view! { <li>{r.clone()}</li> }).collect_view()}
                </ul>
            })}
        </section>
    }
}
