//! What the People page offers admins for adding people and their access: "Add a person", the
//! invite link shown once, and the drawer's "Reset password", "Make admin" and "Remove admin".

use super::add_person::{AddPerson, AddPersonDraft, NewInviteLink};
use super::load_add_person::AddPersonData;
use super::reset_password::ResetPassword;
use super::set_admin::SetAdmin;
use engine::org::{Person, Role, Team};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// The link just made, with whose it is; the page never shows it again.
#[component]
pub fn NewLinkLine(link: Option<NewInviteLink>) -> impl IntoView {
    link.map(|l| {
        let label = format!("{}'s invite link", l.name);
        view! {
            <div class="notice ok invite-link" role="status">
                <p>{format!(
                    "{}'s invite link, shown only once. Copy it and give it to them: it works once, for 7 days. No email is sent.",
                    l.name
                )}</p>
                <input type="text" readonly class="secret" aria-label=label value=l.link.clone()/>
                <p><code class="secret">{l.link}</code></p>
            </div>
        }
    })
}

/// "Add a person": name, email, main team and, optionally, their own department role.
#[component]
pub fn AddPersonForm(data: AddPersonData, teams: Vec<Team>, roles: Vec<Role>) -> impl IntoView {
    let AddPersonData { draft, new_link, .. } = data;
    let d = draft.unwrap_or_default();
    let AddPersonDraft { name, email, main_team, role } = d;
    view! {
        <NewLinkLine link=new_link/>
        <section class="add-person" aria-label="Add a person">
            <h2>"Add a person"</h2>
            <form method="post" action=AddPerson::url()>
                <label>"Name " <input type="text" name="name" value=name required/></label>
                <label>"Email " <input type="email" name="email" value=email required/></label>
                <label>"Main team "
                    <select name="main_team">
                        <option value="" selected=main_team.is_empty()>"No team yet"</option>
                        {teams.into_iter().map(|t| {
                            let id = t.id.to_string();
                            let chosen = id == main_team;
                            view! { <option value=id selected=chosen>{t.name}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label>"Department role "
                    <select name="role">
                        <option value="" selected=role.is_empty()>"From their team"</option>
                        {roles.into_iter().map(|r| {
                            let id = r.id.to_string();
                            let chosen = id == role;
                            view! { <option value=id selected=chosen>{r.name}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <button type="submit">"Add person"</button>
            </form>
            <p class="hint">"Engram makes a one-time invite link, valid for 7 days, with which they set their password. No email is sent: you copy the link."</p>
        </section>
    }
}

/// The drawer's access controls for someone who has not left: a new invite link (which signs
/// them out everywhere), and the admin flag. Hidden from yourself, except removing your own admin.
#[component]
pub fn PersonAccess(person: Person, me: Option<i64>) -> impl IntoView {
    let id = person.id.to_string();
    let is_me = me == Some(person.id.0);
    let (admin_value, admin_label) = if person.is_admin { ("false", "Remove admin") } else { ("true", "Make admin") };
    (person.left_at.is_none()).then(|| {
        view! {
            <div class="person-access">
                {(!is_me).then(|| view! {
                    <form method="post" action=ResetPassword::url() class="inline">
                        <input type="hidden" name="person" value=id.clone()/>
                        <label>"Your password "
                            <input type="password" name="password" required autocomplete="current-password"/>
                        </label>
                        <button type="submit" class="secondary">"Reset password"</button>
                    </form>
                    <span class="hint">
                        " Makes a new invite link and signs them out everywhere; they are told at their next sign-in that you did."
                    </span>
                })}
                <form method="post" action=SetAdmin::url() class="inline">
                    <input type="hidden" name="person" value=id.clone()/>
                    <input type="hidden" name="admin" value=admin_value/>
                    <button type="submit" class="secondary">{admin_label}</button>
                </form>
            </div>
        }
    })
}
