use leptos::prelude::*;

/// Sets up Engram: the company and its first admin, who is then signed in and lands on People. A
/// refusal keeps what was typed (never the password); a setup that came too late leads to sign-in.
#[server(prefix = "/fn", endpoint = "set_up")]
pub async fn set_up(
    company: String,
    zone: String,
    // Optional: a client that leaves it out gets the default.
    locale: Option<String>,
    name: String,
    email: String,
    password: String,
) -> Result<(), ServerFnError> {
    use super::{SetupDraft, SETUP, SETUP_DRAFT_KEY};
    use crate::auth::load_sign_in::{SignInFlash, SIGN_IN_FLASH_KEY};
    use crate::flash::Notice;
    use crate::paths::{PEOPLE, SIGN_IN};
    use crate::ssr::*;
    use engine::org::service::SetupRequest;
    use engine::org::setup::SetupError;
    let request = SetupRequest {
        company: &company,
        time_zone: &zone,
        locale: locale.as_deref().unwrap_or_default(),
        admin_name: &name,
        admin_email: &email,
        password: &password,
    };
    match org()?.set_up(request).await {
        Ok(admin) => {
            let session = session().await?;
            begin_session(&session, &*auth()?, &admin).await.map_err(internal)?;
            tracing::info!(person = %admin.id, "Engram is set up; its first admin is signed in");
            let welcome = format!("Engram is set up for {}. You are its admin; next, add your people.", company.trim());
            notice_back(PEOPLE, Notice::ok(welcome)).await
        }
        Err(e @ SetupError::AlreadySetUp) => {
            set_flash(SIGN_IN_FLASH_KEY, &SignInFlash { email: String::new(), message: refusal(&e) }).await?;
            go_to(SIGN_IN);
            Ok(())
        }
        Err(e) => {
            let draft =
                SetupDraft { company, zone, locale: locale.unwrap_or_default(), name, email, message: refusal(&e) };
            set_flash(SETUP_DRAFT_KEY, &draft).await?;
            go_to(SETUP);
            Ok(())
        }
    }
}
