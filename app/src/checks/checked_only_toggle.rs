use super::load_checked_only::load_checked_only;
use super::set_checked_only::SetCheckedOnly;
use crate::components::NoticeLine;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// The setting on a role's or a team's page: its people see an answer only once it is checked.
#[component]
pub fn CheckedOnlyToggle(scope: String, back: String) -> impl IntoView {
    let key = scope.clone();
    let data = Resource::new(move || key.clone(), load_checked_only);
    // Only an admin may read or change it; for anyone else the section is not there.
    view! {
        <Suspense fallback=|| ()>
            {move || {
                let (scope, back) = (scope.clone(), back.clone());
                Suspend::new(async move {
                    data.await.ok().map(|d| view! {
                        <section class="checked-only">
                            <h2>"Checked answers"</h2>
                            <NoticeLine notice=d.notice/>
                            <form method="post" action=SetCheckedOnly::url() class="inline">
                                <input type="hidden" name="scope" value=scope/>
                                <input type="hidden" name="back" value=back/>
                                <label>
                                    <input type="checkbox" name="on" value="on" checked=d.on/>
                                    " Show only checked answers: an answer shows once its facts are read again from their source"
                                </label>
                                " "
                                <button type="submit">"Save"</button>
                            </form>
                        </section>
                    })
                })
            }}
        </Suspense>
    }
}
