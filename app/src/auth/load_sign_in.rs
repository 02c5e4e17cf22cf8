use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What a refused sign-in leaves for the form: the email typed and the one refusal sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SignInFlash {
    pub email: String,
    pub message: String,
}

pub const SIGN_IN_FLASH_KEY: &str = "sign_in";

#[server(prefix = "/fn", endpoint = "load_sign_in")]
pub async fn load_sign_in() -> Result<Option<SignInFlash>, ServerFnError> {
    crate::ssr::take_flash(SIGN_IN_FLASH_KEY).await
}
