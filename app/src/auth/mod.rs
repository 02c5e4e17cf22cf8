//! Sign-in. The form posts to the server's /auth routes, which own the session.

pub mod load_sign_in;
pub mod sign_in_page;
pub mod sign_out_page;
