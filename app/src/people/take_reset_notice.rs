use leptos::prelude::*;

/// The sentence a person reads once, on the first page after their next sign-in, when an admin
/// reset their password: who did and when. None for anyone signed out, and almost always.
#[server(prefix = "/fn", endpoint = "take_reset_notice")]
pub async fn take_reset_notice() -> Result<Option<String>, ServerFnError> {
    use crate::ssr::*;
    // A page's guard read whether a notice waits with the person: almost always none, and then
    // nothing more is read.
    if guard_answer().is_some_and(|s| !s.reset_notice_waiting) {
        return Ok(None);
    }
    let Some(me) = person_in_session(&session().await?, &*auth()?).await.map_err(internal)? else {
        return Ok(None);
    };
    let notice = org()?.people.take_reset_notice(&me).await.map_err(refused)?;
    Ok(notice.map(|n| n.sentence()))
}
