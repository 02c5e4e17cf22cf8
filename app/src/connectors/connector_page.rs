use super::add_my_work_query::AddMyWorkQuery;
use super::confirm_shape::ConfirmShape;
use super::draft_shapes::DraftShapes;
use super::load_sheet::{load_sheet, SheetData};
use super::reapprove_tool::ReapproveTool;
use super::save_connector::SaveConnector;
use super::save_connector_notes::SaveConnectorNotes;
use super::set_company_key::SetCompanyKey;
use super::set_whos_who::SetWhosWho;
use super::set_write_target::SetWriteTarget;
use super::tick_tool::TickTool;
use super::toolset_access::{AdmitsRoles, OwnKeys};
use crate::components::{loaded, NoticeLine};
use engine::cards::pins::{Listed, ToolPin};
use engine::cards::source::{FactKind, RecordShape};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;

/// What marking a toolset as who's who does, in the seed's words.
pub const WHOS_WHO_NOTE: &str = "Its reference lists (team members, territories, lead sources) join the slice of the \
     people they name exactly. They are fetched daily with the company key alone, never under the kill switch, and \
     only their structured values are kept.";

/// The seed's note on the Keep cards switch.
pub const KEEP_CARDS_NOTE: &str = "Some systems' terms do not allow keeping copies, for example Slack's API terms";

#[component]
pub fn ConnectorPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").and_then(|i| i.parse::<i64>().ok()).unwrap_or(0);
    let data = Resource::new(id, load_sheet);
    view! { {loaded(data, |d| view! { <SheetView data=d/> })} }
}

/// One field a line, with the label and format people will read it under: the admin's, or
/// drafted from the name for the admin to confirm or change.
fn field_lines(s: &RecordShape) -> String {
    s.fields
        .iter()
        .map(|f| match f.free_text {
            true => format!("{}: free text | {}", f.name, f.label()),
            false => format!("{}: structured | {} | {}", f.name, f.label(), f.format().words()),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[component]
fn ShapeForm(id: i64, shape: RecordShape, label: &'static str) -> impl IntoView {
    let rows = shape.fields.len().max(3).to_string();
    view! {
        <form method="post" action=ConfirmShape::url() class="shape">
            <input type="hidden" name="id" value=id.to_string()/>
            <input type="hidden" name="tool" value=shape.tool.clone()/>
            <h3>{shape.tool.clone()}</h3>
            <label>"Kind of record " <input type="text" name="kind" value=shape.kind.clone() required/></label>
            <label>" Id field " <input type="text" name="id_field" value=shape.id_field.clone() required/></label>
            <label>" Version field " <input type="text" name="version_field" value=shape.version_field.clone().unwrap_or_default()/></label>
            <label>" Reads one by id with " <input type="text" name="get_tool" value=shape.get_tool.clone() required/></label>
            <label class="block">"Fields to keep, one a line: name: structured | label | format (text, number, date, or amount and a currency code such as amount INR), or name: free text | label"
                <textarea name="fields" rows=rows>{field_lines(&shape)}</textarea>
            </label>
            <button type="submit">{label}</button>
        </form>
    }
}

#[component]
fn SheetView(data: SheetData) -> impl IntoView {
    let SheetData { sheet, notice, whos_who, role_slugs, notes } = data;
    let c = sheet.connector.clone();
    let id = c.id;
    let mode = c.key_mode.as_str();
    let label = c.label.as_str();
    let mut kinds: Vec<String> = sheet.shapes.iter().filter(|s| s.confirmed).map(|s| s.kind.clone()).collect();
    kinds.sort();
    kinds.dedup();
    let tools_view = match sheet.tools.clone() {
        Ok(tools) => view! {
            <ul class="tools">
                {tools.into_iter().map(|t| {
                    let on = c.ticked.contains(&t.name) || c.acting.contains(&t.name);
                    let target = (t.access == "write" && on).then(|| {
                        let now = c.write_targets.iter().find(|w| w.tool == t.name).cloned();
                        view! { <WriteTargetForm id tool=t.name.clone() kinds=kinds.clone() now/> }
                    });
                    view! {
                        <li>
                            <form method="post" action=TickTool::url() class="inline">
                                <input type="hidden" name="id" value=id.to_string()/>
                                <input type="hidden" name="tool" value=t.name.clone()/>
                                <input type="hidden" name="on" value=(!on).to_string()/>
                                <code>{t.name.clone()}</code>
                                {format!(
                                    " — {}{}{}{} ",
                                    t.description,
                                    if t.bulk { " (bulk)" } else { "" },
                                    if t.reference { " (reference list)" } else { "" },
                                    if t.access == "write" { " (acts: each call waits in the person's Inbox)" } else { "" },
                                )}
                                <button type="submit">{if on { "Untick" } else { "Tick" }}</button>
                            </form>
                            {target}
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
        .into_any(),
        Err(e) => view! { <p class="notice refused">{format!("The tools could not be listed: {e}")}</p> }.into_any(),
    };
    let confirmed: Vec<String> = sheet.shapes.iter().filter(|s| s.confirmed).map(|s| s.tool.clone()).collect();
    let ticked = c.ticked.clone();
    view! {
        <h1>{format!("Connector: {}", c.name)}</h1>
        <NoticeLine notice/>
        <p class="meta">{format!("{} · the company key is stored and never shown again", c.base_url)}</p>
        <section>
            <h2>"Company key"</h2>
            <p class="meta">{if c.has_company_key {
                "A company key is set."
            } else {
                "No company key is set: enter one to read with the company key."
            }}</p>
            <form method="post" action=SetCompanyKey::url() class="inline">
                <input type="hidden" name="id" value=id.to_string()/>
                <label>"New company key " <input type="password" name="company_key" autocomplete="off" required/></label>
                <button type="submit">"Replace the company key"</button>
            </form>
        </section>
        {sheet.notices.iter().map(|n| view! { <p class="notice warn limit-notice" role="status">{n.clone()}</p> }).collect_view()}
        <section>
            <h2>"Settings"</h2>
            <form method="post" action=SaveConnector::url() class="settings">
                <input type="hidden" name="id" value=id.to_string()/>
                <label>"Reads with "
                    <select name="key_mode">
                        <option value="company" selected=mode == "company">"the company key"</option>
                        <option value="acting_for" selected=mode == "acting_for">"the acting-for header"</option>
                        <option value="own_keys" selected=mode == "own_keys">"people's own keys"</option>
                    </select>
                </label>
                <label>" Data label "
                    <select name="label">
                        {["public", "internal", "confidential", "personal"].into_iter().map(|l| view! {
                            <option value=l selected=label == l>{l}</option>
                        }).collect_view()}
                    </select>
                </label>
                <p>
                    <label><input type="checkbox" name="keep_cards" value="on" checked=c.keep_cards/>" Keep cards"</label>
                    <span class="meta">{format!(" {KEEP_CARDS_NOTE}. Turning it off removes this connector's cards at once.")}</span>
                </p>
                <p class="meta">"How long what a card holds may age, by kind of fact, in minutes counted in UTC. \
                    Past its soft limit, what an answer used is checked against the source after the answer; \
                    past its hard limit, the source is read first."</p>
                {FactKind::ALL.into_iter().map(|k| {
                    let f = c.facts.of(k);
                    let word = k.words();
                    let mut label = word.to_string();
                    label[..1].make_ascii_uppercase();
                    view! {
                        <p>
                            {format!("{label}: checked after ")}
                            <input type="number" name=format!("{}_soft", k.as_str()) min="0" value=f.soft_mins.to_string()
                                aria-label=format!("{word}: soft limit")/>
                            " min, read the source first after "
                            <input type="number" name=format!("{}_hard", k.as_str()) min="0" value=f.hard_mins.to_string()
                                aria-label=format!("{word}: hard limit")/>" min"
                        </p>
                    }
                }).collect_view()}
                <p>
                    "Free text: answer from memory for "
                    <input type="number" name="free_text_soft" min="0" value=c.free_text.soft_mins.to_string()/>
                    " min, read the source first after "
                    <input type="number" name="free_text_hard" min="0" value=c.free_text.hard_mins.to_string()/>" min"
                </p>
                <p>
                    <label>"At most " <input type="number" name="hourly_limit" min="1" value=c.hourly_limit.to_string()/>" reads an hour"</label>
                    <label>" " <input type="checkbox" name="killed" value="on" checked=c.killed/>" Kill switch (no reads at all)"</label>
                </p>
                <button type="submit">"Save settings"</button>
            </form>
        </section>
        <AdmitsRoles connector=c.clone() roles=role_slugs/>
        <OwnKeys connector=c.clone()/>
        <section>
            <h2>"Who's who"</h2>
            <p class="meta">{if whos_who {
                "This toolset is marked as who's who."
            } else {
                "This toolset is not marked as who's who."
            }}</p>
            <p class="meta">{WHOS_WHO_NOTE}</p>
            <form method="post" action=SetWhosWho::url() class="inline">
                <input type="hidden" name="id" value=id.to_string()/>
                <input type="hidden" name="on" value=(!whos_who).to_string()/>
                <button type="submit">{if whos_who { "Unmark as who's who" } else { "Mark as who's who" }}</button>
            </form>
        </section>
        <section class="connector-notes">
            <h2>"Notes for agents"</h2>
            <p class="meta">"What agents should know about this system: its ids, its words, its habits. Draft from what exists reads them when drafting the company core of a role this toolset admits."</p>
            <form method="post" action=SaveConnectorNotes::url()>
                <input type="hidden" name="connector" value=id.to_string()/>
                <label for="connector-notes">"Notes for agents"</label>
                <textarea id="connector-notes" name="text" rows="5">{notes}</textarea>
                <button type="submit">"Save notes"</button>
            </form>
        </section>
        <section>
            <h2>"Tools"</h2>
            <ChangedTools id changed=sheet.changed_tools.clone()/>
            {tools_view}
        </section>
        <section>
            <h2>"What it returns"</h2>
            <p class="meta">"A tool with no confirmed shape works as before and keeps nothing."</p>
            <form method="post" action=DraftShapes::url() class="inline">
                <input type="hidden" name="id" value=id.to_string()/>
                <button type="submit">"Draft shapes"</button>
            </form>
            {sheet.drafts.into_iter().filter(|d| !confirmed.contains(&d.tool)).map(|d| view! {
                <ShapeForm id shape=d label="Confirm"/>
            }).collect_view()}
            {sheet.shapes.into_iter().filter(|s| s.confirmed).map(|s| view! {
                <ShapeForm id shape=s label="Save shape"/>
            }).collect_view()}
        </section>
        <section>
            <h2>"“My work” queries"</h2>
            <ul class="queries">
                {sheet.queries.iter().map(|(role, q)| view! {
                    <li>{format!("{role}: {} — {} {}", q.label, q.tool, q.arguments)}</li>
                }).collect_view()}
            </ul>
            <form method="post" action=AddMyWorkQuery::url() class="settings">
                <input type="hidden" name="id" value=id.to_string()/>
                <label>"Role "
                    <select name="role">
                        {sheet.roles.iter().map(|(rid, name)| view! { <option value=rid.to_string()>{name.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>" Tool "
                    <select name="tool">
                        {ticked.iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>" Arguments " <input type="text" name="arguments" placeholder="{\"owner\": \"{me}\"}" required/></label>
                <label>" Name " <input type="text" name="label" placeholder="Leads with a follow-up today" required/></label>
                <button type="submit">"Add query"</button>
            </form>
            <p class="meta">"{me} stands for the person's email and {today} for their date."</p>
        </section>
    }
}

/// What a ticked tool that acts changes: set, the change reads that record first.
#[component]
fn WriteTargetForm(
    id: i64,
    tool: String,
    kinds: Vec<String>,
    now: Option<engine::cards::source::WriteTarget>,
) -> impl IntoView {
    let current = now.as_ref().map(|w| w.kind.clone()).unwrap_or_default();
    let argument = now.as_ref().map(|w| w.id_argument.clone()).unwrap_or_else(|| "id".to_string());
    let line = match &now {
        Some(w) => format!("Changes a {} named by its {} argument: it reads the record first.", w.kind, w.id_argument),
        None => "No write target: the change runs without reading a record first.".to_string(),
    };
    view! {
        <form method="post" action=SetWriteTarget::url() class="write-target">
            <input type="hidden" name="id" value=id.to_string()/>
            <input type="hidden" name="tool" value=tool/>
            <span class="meta">{line}" "</span>
            <label>"Changes a "
                <select name="kind">
                    <option value="" selected=current.is_empty()>"(no record)"</option>
                    {kinds.into_iter().map(|k| view! {
                        <option value=k.clone() selected=k == current>{k.clone()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>" named by the argument " <input type="text" name="id_argument" value=argument/></label>
            <button type="submit">"Save the write target"</button>
        </form>
    }
    .into_any()
}

/// Ticked tools whose listing changed since an admin approved them: the approved text and the
/// listing's, each with its button. Runs are given the approved copy until one is pressed.
#[component]
fn ChangedTools(id: i64, changed: Vec<ToolPin>) -> impl IntoView {
    if changed.is_empty() {
        return ().into_any();
    }
    let schema = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
    view! {
        <div class="changed-tools" role="status">
            <p class="notice warn">"The source now lists these ticked tools differently from what was approved. \
                Runs are still given the approved copy; a tool no longer listed is not offered."</p>
            {changed.into_iter().map(|p| {
                let seen = p.seen().to_string();
                let approved = view! {
                    <p class="meta">"Approved:"</p>
                    <blockquote class="approved">{p.copy.description.clone()}</blockquote>
                    <pre class="approved">{schema(&p.copy.parameters)}</pre>
                };
                let now = match p.drift.map(|d| d.listed) {
                    Some(Listed::Changed { description, parameters }) => view! {
                        <p class="meta">"Listed now:"</p>
                        <blockquote class="listed">{description}</blockquote>
                        <pre class="listed">{schema(&parameters)}</pre>
                        <form method="post" action=ReapproveTool::url() class="inline">
                            <input type="hidden" name="id" value=id.to_string()/>
                            <input type="hidden" name="tool" value=p.copy.tool.clone()/>
                            <input type="hidden" name="seen" value=seen/>
                            <button type="submit">{format!("Approve {} as listed now", p.copy.tool)}</button>
                        </form>
                    }
                    .into_any(),
                    _ => view! {
                        <p class="meta">"No longer listed: runs do not offer it."</p>
                        <form method="post" action=TickTool::url() class="inline">
                            <input type="hidden" name="id" value=id.to_string()/>
                            <input type="hidden" name="tool" value=p.copy.tool.clone()/>
                            <input type="hidden" name="on" value="false"/>
                            <button type="submit">{format!("Untick {}", p.copy.tool)}</button>
                        </form>
                    }
                    .into_any(),
                };
                view! {
                    <article class="changed-tool">
                        <h3><code>{p.copy.tool.clone()}</code>" changed"</h3>
                        {approved}
                        {now}
                    </article>
                }
            }).collect_view()}
        </div>
    }
    .into_any()
}
