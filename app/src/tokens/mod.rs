//! Personal API tokens for /api.

pub mod create_token;
pub mod load_tokens;
pub mod revoke_token;
pub mod tokens_page;
