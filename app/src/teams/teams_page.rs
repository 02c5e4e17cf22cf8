use crate::components::{ErrorLine, Loading, NoticeLine};
use crate::cores::load_roles::load_roles;
use crate::cores::roles_page::TeamList;
use crate::paths::TEAMS;
use leptos::prelude::*;

#[component]
pub fn TeamsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_roles(TEAMS.to_string()));
    view! {
        <h1>"Teams"</h1>
        <Suspense fallback=Loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => {
                        let roles = d.overview.roles.iter().map(|r| r.role.clone()).collect::<Vec<_>>();
                        view! {
                            <NoticeLine notice=d.notice/>
                            <TeamList teams=d.overview.teams roles is_admin=d.overview.is_admin back=TEAMS/>
                        }.into_any()
                    }
                    Err(error) => view! { <ErrorLine error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}
