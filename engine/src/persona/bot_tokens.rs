//! A bot's own API tokens. Each expires (`ENGRAM_BOT_TOKEN_DAYS`, 90 days unless set); the bot's
//! owner or lead lists and revokes them; and a token stops working when the roster names another
//! owner than the person who made it, since it carried that person's say over the bot.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How long a bot token works when `ENGRAM_BOT_TOKEN_DAYS` is not set.
pub const DEFAULT_BOT_TOKEN_DAYS: u32 = 90;

/// `revoked_why` of a token its owner or lead revoked.
pub const REVOKED_BY_PERSON: &str = "revoked";
/// `revoked_why` of a token refused because the roster names another owner than its maker.
pub const REVOKED_OWNER_CHANGED: &str = "owner_changed";

/// A bot token as its owner or lead sees it listed; never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentToken {
    pub id: i64,
    pub agent: String,
    pub name: String,
    /// The name of the person who made it (the bot's owner then).
    pub made_by: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// `revoked`, `owner_changed`, or none (revoked before reasons were kept, or its maker left).
    pub revoked_why: Option<String>,
}

/// What the store holds of a token someone presented, for the engine to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentedToken {
    pub id: i64,
    pub agent: String,
    /// The email of the person who made it.
    pub made_by_email: String,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub revoked_why: Option<String>,
}

/// Whether a bearer token acts as a bot, and if not, why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCheck {
    /// A live bot token: the bot it acts as.
    Live(String),
    /// Not a bot token we know, or revoked.
    Unknown,
    Expired(DateTime<Utc>),
    /// Made by someone the roster no longer names as the bot's owner.
    OwnerChanged(String),
}

impl TokenCheck {
    /// The refusal's code and sentence, or none for a live token. The codes sit beside
    /// `bad_token`, so a dispatcher can tell a token to replace from one never valid.
    pub fn refusal(&self) -> Option<(&'static str, String)> {
        match self {
            TokenCheck::Live(_) => None,
            TokenCheck::Unknown => Some(("bad_token", "That API token is unknown or revoked".to_string())),
            TokenCheck::Expired(at) => Some((
                "token_expired",
                format!(
                    "That bot token expired on {}. Its owner can make a new one with `engram org token`.",
                    at.format("%Y-%m-%d %H:%M UTC")
                ),
            )),
            TokenCheck::OwnerChanged(agent) => Some((
                "owner_changed",
                format!(
                    "That bot token no longer works because {agent}'s owner changed. \
                     The new owner can make a new one with `engram org token`."
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_has_its_own_code_and_a_live_token_none() {
        let at = DateTime::parse_from_rfc3339("2027-03-04T21:30:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(TokenCheck::Live("scout".into()).refusal(), None);
        assert_eq!(TokenCheck::Unknown.refusal().unwrap().0, "bad_token");
        let (code, message) = TokenCheck::Expired(at).refusal().unwrap();
        assert_eq!(code, "token_expired");
        assert!(message.contains("expired on 2027-03-04 21:30 UTC"), "{message}");
        let (code, message) = TokenCheck::OwnerChanged("scout".into()).refusal().unwrap();
        assert_eq!(code, "owner_changed");
        assert!(message.contains("scout's owner changed"), "{message}");
    }
}
