//! Invite links: a one-time secret with which a new person (or one whose password an admin reset)
//! sets their password. Only the secret's hash is stored, as for API tokens.

use rand::RngCore;

/// How long an invite link works.
pub const INVITE_DAYS: i64 = 7;
/// Invite secrets start with this, so one pasted into the wrong place is recognisable.
pub const INVITE_PREFIX: &str = "inv_";

/// A new secret for a link: `/invite/<secret>`.
pub fn new_invite_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let body: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{INVITE_PREFIX}{body}")
}

/// What the store keeps of a secret.
pub fn hash_invite_secret(secret: &str) -> String {
    super::hash_api_token(secret)
}

/// The path a person opens.
pub fn invite_path(secret: &str) -> String {
    format!("/invite/{secret}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_differ_and_hash_stably() {
        let a = new_invite_secret();
        assert!(a.starts_with(INVITE_PREFIX) && a.len() == INVITE_PREFIX.len() + 64);
        assert_ne!(a, new_invite_secret());
        assert_eq!(hash_invite_secret(&a), hash_invite_secret(&a));
        assert_ne!(hash_invite_secret(&a), a);
        assert_eq!(invite_path("inv_x"), "/invite/inv_x");
    }
}
