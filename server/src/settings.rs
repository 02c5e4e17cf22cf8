use crate::adapters::embed::EmbedSettings;
use crate::adapters::llm::ModelSettings;
use crate::secrets::KeySetting;
use leptos::config::LeptosOptions;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Everything the server is built from. Tests make their own with a temporary database.
#[derive(Clone, Debug)]
pub struct Settings {
    pub database_url: String,
    pub leptos: LeptosOptions,
    /// Cookies get the Secure flag when the site is served over HTTPS.
    pub secure_cookies: bool,
    /// A session unused this long ends.
    pub session_idle_minutes: i64,
    /// Requests with a larger body are refused with 413.
    pub body_limit_bytes: usize,
    /// `ENGRAM_VAULT`: the folder with the bots' configuration and memory files.
    pub vault: Option<PathBuf>,
    pub models: ModelSettings,
    /// `ENGRAM_EMBED_MODEL` and its settings: the embedding model lessons are ranked by beside
    /// their words; `None` ranks them by words alone. Read after `models`, whose providers'
    /// addresses and keys it falls back on.
    pub embed: Option<EmbedSettings>,
    /// `ORG_REFLECT_MAX_PER_DAY`: model calls across every bot per UTC day.
    pub reflect_max_per_day: u32,
    /// `ENGRAM_ASK_MAX_PER_DAY`: model calls agents make answering people, per UTC day.
    pub ask_max_per_day: u32,
    /// Runs Prepare my day and the forgetting job in the background; tests drive them by hand.
    pub run_jobs: bool,
    /// `ENGRAM_TRUST_FORWARDED_FOR=1`: behind a reverse proxy, count sign-in attempts by the
    /// address the proxy appends to X-Forwarded-For rather than by the proxy's own.
    pub trust_forwarded_for: bool,
    /// `ENGRAM_PUBLIC_URL`: the address people reach Engram at (`https://engram.acme.example`),
    /// without a trailing slash; invite links begin with it.
    pub public_url: Option<String>,
    /// Where the secret key that seals connector keys comes from: `ENGRAM_SECRET_KEY`,
    /// `ENGRAM_SECRET_KEY_FILE`, else a key file beside the SQLite database.
    pub secret_key: KeySetting,
    /// `ENGRAM_OUTBOX_URL`: where approved emails go (`POST <url>/messages`). Without it, agents
    /// are not offered `send_email`. The demo serves its own outbox.
    pub outbox_url: Option<String>,
    /// `ENGRAM_BOT_TOKEN_DAYS`: how many days a bot's own token works after it is made.
    pub bot_token_days: u32,
}

pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/engram.db";

impl Settings {
    /// Reads the environment: `ENGRAM_DATABASE_URL`, `ENGRAM_PUBLIC_URL`, and cargo-leptos's
    /// `LEPTOS_*` variables for where the site's files are and which address to serve.
    pub fn from_env() -> Self {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let addr: SocketAddr = env("ENGRAM_ADDR")
            .or_else(|| env("LEPTOS_SITE_ADDR"))
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 3000)));
        let site_root = env("LEPTOS_SITE_ROOT").unwrap_or_else(|| "target/site".to_string());
        let output_name = env("LEPTOS_OUTPUT_NAME").unwrap_or_else(|| "engram".to_string());
        let pkg_dir = env("LEPTOS_SITE_PKG_DIR").unwrap_or_else(|| "pkg".to_string());
        let hash_files = match env("LEPTOS_HASH_FILES") {
            Some(v) => v == "true",
            None => hashed_site(&std::path::Path::new(&site_root).join(&pkg_dir), &output_name),
        };
        let leptos = LeptosOptions::builder()
            .output_name(output_name)
            .site_root(site_root)
            .site_pkg_dir(pkg_dir)
            .site_addr(addr)
            .hash_files(hash_files)
            .build();
        let models = ModelSettings::from_env();
        let embed = match EmbedSettings::from_env(env("ENGRAM_EMBED_MODEL").as_deref(), &models, env) {
            Ok(e) => e,
            Err(why) => {
                tracing::warn!(why, "no embedding model; lessons rank by their words alone");
                None
            }
        };
        Self {
            database_url: env("ENGRAM_DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string()),
            leptos,
            secure_cookies: env("ENGRAM_PUBLIC_URL").is_some_and(|u| u.starts_with("https://")),
            public_url: env("ENGRAM_PUBLIC_URL").map(|u| u.trim_end_matches('/').to_string()),
            session_idle_minutes: 8 * 60,
            body_limit_bytes: 1024 * 1024,
            vault: env("ENGRAM_VAULT").map(PathBuf::from),
            models,
            embed,
            reflect_max_per_day: env("ORG_REFLECT_MAX_PER_DAY")
                .and_then(|v| v.parse().ok())
                .unwrap_or(engine::persona::service::DEFAULT_MAX_PER_DAY),
            ask_max_per_day: env("ENGRAM_ASK_MAX_PER_DAY")
                .and_then(|v| v.parse().ok())
                .unwrap_or(engine::runs::service::DEFAULT_ASK_MAX_PER_DAY),
            run_jobs: true,
            trust_forwarded_for: env("ENGRAM_TRUST_FORWARDED_FOR").is_some_and(|v| v == "1" || v == "true"),
            secret_key: KeySetting::from_env(),
            outbox_url: env("ENGRAM_OUTBOX_URL"),
            bot_token_days: bot_token_days(env("ENGRAM_BOT_TOKEN_DAYS")),
        }
    }
}

/// The longest lifetime `ENGRAM_BOT_TOKEN_DAYS` may set: ten years.
const MAX_BOT_TOKEN_DAYS: u32 = 3650;

/// A whole number of days from 1 to ten years; anything else keeps the default, and says so in the
/// log, so a typo never makes tokens that last for ever or expire at once.
fn bot_token_days(value: Option<String>) -> u32 {
    let default = engine::persona::bot_tokens::DEFAULT_BOT_TOKEN_DAYS;
    let Some(v) = value else { return default };
    match v.trim().parse::<u32>() {
        Ok(days) if (1..=MAX_BOT_TOKEN_DAYS).contains(&days) => days,
        _ => {
            tracing::warn!(value = %v, default, "ENGRAM_BOT_TOKEN_DAYS must be a whole number of days from 1 to 3650");
            default
        }
    }
}

/// Whether the site was built with hashed names, when cargo-leptos is not there to say: its hash
/// file lies beside the binary (where Leptos reads the names from) and names a JS file the site
/// has. A hash file left over from an earlier build names a file that is gone.
fn hashed_site(pkg: &std::path::Path, output_name: &str) -> bool {
    let Some(hash_file) = std::env::current_exe().ok().and_then(|exe| Some(exe.parent()?.join("hash.txt"))) else {
        return false;
    };
    let Ok(hashes) = std::fs::read_to_string(hash_file) else { return false };
    hashes
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(kind, _)| kind.trim() == "js")
        .is_some_and(|(_, hash)| pkg.join(format!("{output_name}.{}.js", hash.trim())).exists())
}

#[cfg(test)]
mod tests {
    use super::bot_token_days;

    #[test]
    fn bot_token_days_default_to_ninety_and_refuse_nonsense() {
        assert_eq!(bot_token_days(None), 90);
        assert_eq!(bot_token_days(Some("30".into())), 30);
        assert_eq!(bot_token_days(Some(" 7 ".into())), 7);
        for bad in ["0", "-3", "ninety", "3651", "1.5"] {
            assert_eq!(bot_token_days(Some(bad.into())), 90, "{bad}");
        }
    }
}
