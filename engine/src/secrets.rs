//! Secrets never become memory: the one detector every write path asks before it keeps text.
//!
//! No maintained Rust crate ports gitleaks' or detect-secrets' rules without heavy dependencies,
//! so the rules here are written on `regex` (linear time: no text can make a rule run away),
//! modelled on gitleaks' public rules. Each rule names what it finds ("an AWS access key") and
//! which part of its match is the secret, so a refusal can say where it stands and a kept text
//! can mask only the secret (`AKIA…MPLE`). Rules that need context (an AWS secret key, a
//! password) ask for the word that names the secret beside it, and a generic password or secret
//! also needs a value that looks random, so ordinary prose, ids and hashes pass.

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::OnceLock;

/// What a secret is, as a refusal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SecretKind {
    AwsAccessKey,
    AwsSecretKey,
    GithubToken,
    GitlabToken,
    SlackToken,
    StripeKey,
    AnthropicKey,
    OpenAiKey,
    GoogleApiKey,
    Jwt,
    PrivateKey,
    ConnectionString,
    UrlWithPassword,
    AzureStorageKey,
    Password,
    GenericSecret,
}

impl SecretKind {
    /// "an AWS access key": the words a sentence names the secret by.
    pub fn words(self) -> &'static str {
        match self {
            SecretKind::AwsAccessKey => "an AWS access key",
            SecretKind::AwsSecretKey => "an AWS secret access key",
            SecretKind::GithubToken => "a GitHub token",
            SecretKind::GitlabToken => "a GitLab token",
            SecretKind::SlackToken => "a Slack token",
            SecretKind::StripeKey => "a Stripe key",
            SecretKind::AnthropicKey => "an Anthropic API key",
            SecretKind::OpenAiKey => "an OpenAI-style API key",
            SecretKind::GoogleApiKey => "a Google API key",
            SecretKind::Jwt => "a JSON Web Token",
            SecretKind::PrivateKey => "a private key",
            SecretKind::ConnectionString => "a connection string with a password",
            SecretKind::UrlWithPassword => "a URL with a password",
            SecretKind::AzureStorageKey => "an Azure storage account key",
            SecretKind::Password => "a password",
            SecretKind::GenericSecret => "a secret or token",
        }
    }
}

/// One secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: SecretKind,
    /// Byte range of the secret itself (for a URL, its password), within the text.
    pub start: usize,
    pub end: usize,
    /// Where the secret starts, from 1, counted in characters.
    pub line: usize,
    pub column: usize,
    /// The secret as a sentence may show it.
    pub masked: String,
}

impl Finding {
    /// "an AWS access key (AKIA…MPLE) at line 1, column 12".
    pub fn describe(&self) -> String {
        format!("{} ({}) at line {}, column {}", self.kind.words(), self.masked, self.line, self.column)
    }
}

/// A text refused for the secret it holds: which text, and the first secret in it. Its sentence
/// names the kind and where it stands, and shows only the masked secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretRefusal {
    /// What the text is, as the sentence begins: "The lesson", "The notes for agents".
    pub place: String,
    pub finding: Finding,
}

impl std::fmt::Display for SecretRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} holds {}; secrets are never kept, so nothing was saved. Remove it and try again.",
            self.place,
            self.finding.describe()
        )
    }
}

/// Refuses `text` if it holds a secret; `place` begins the sentence ("The lesson").
pub fn refuse(place: &str, text: &str) -> Result<(), SecretRefusal> {
    match find(text).into_iter().next() {
        Some(finding) => Err(SecretRefusal { place: place.to_string(), finding }),
        None => Ok(()),
    }
}

/// The text with every secret masked, borrowed unchanged when it holds none.
pub fn masked(text: &str) -> Cow<'_, str> {
    let found = find(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in &found {
        out.push_str(&text[at..f.start]);
        out.push_str(&f.masked);
        at = f.end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// Every string in a JSON value with its secrets masked; whether any was.
pub fn mask_json(value: &mut serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => match masked(s) {
            Cow::Owned(m) => {
                *s = m;
                true
            }
            Cow::Borrowed(_) => false,
        },
        serde_json::Value::Array(items) => items.iter_mut().fold(false, |any, v| mask_json(v) | any),
        serde_json::Value::Object(map) => map.values_mut().fold(false, |any, v| mask_json(v) | any),
        _ => false,
    }
}

/// What a secret too short to show any of is masked as.
const MASKED_WHOLE: &str = "****";

/// A few characters at each end and an ellipsis between (`AKIA…MPLE`); a secret too short to
/// spare any is hidden whole, so a mask never shows half of one.
pub fn mask(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    let keep = match chars.len() {
        n if n >= 16 => 4,
        n if n >= 12 => 2,
        _ => 0,
    };
    if keep == 0 {
        return MASKED_WHOLE.to_string();
    }
    let head: String = chars[..keep].iter().collect();
    let tail: String = chars[chars.len() - keep..].iter().collect();
    format!("{head}…{tail}")
}

/// One rule: its pattern, whose `secret` group (or whole match) is the secret, and a check of
/// the value where the pattern alone would catch near misses.
struct Rule {
    kind: SecretKind,
    pattern: Regex,
    check: fn(&str) -> bool,
}

fn any_value(_: &str) -> bool {
    true
}

/// A URL's password that is not already a mask: a kept text masked once stays as it is.
fn not_masked(v: &str) -> bool {
    v != MASKED_WHOLE && !v.contains('…')
}

/// An `sk-` key's body mixes letters and digits; a long hyphenated word after "sk-" does not.
fn letters_and_digits(v: &str) -> bool {
    v.chars().any(|c| c.is_ascii_digit()) && v.chars().any(|c| c.is_ascii_alphabetic())
}

/// A password or secret value that looks random: letters and digits, and enough entropy that
/// it is not a word, a placeholder or a hyphenated phrase ("see-the-vault").
fn looks_random(v: &str) -> bool {
    letters_and_digits(v) && shannon_entropy(v) >= 3.0
}

/// Bits per character of the value's own character frequencies.
fn shannon_entropy(v: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0usize;
    for c in v.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        n += 1;
    }
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let rule = |kind, pattern: &str, check: fn(&str) -> bool| Rule {
            kind,
            pattern: Regex::new(pattern).expect("a secret rule's pattern is valid"),
            check,
        };
        // Ordered from the most specific: where two rules match the same characters, the earlier
        // one names the secret.
        vec![
            rule(
                SecretKind::PrivateKey,
                r"(?P<secret>-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?s:.*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s]*))",
                any_value,
            ),
            rule(
                SecretKind::AwsAccessKey,
                r"\b(?P<secret>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
                any_value,
            ),
            rule(
                SecretKind::AwsSecretKey,
                r#"(?i)\baws[\w .-]{0,25}?(?:secret|key)[\w .-]{0,15}?["']?\s*(?::|=>?)\s*["']?(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
                any_value,
            ),
            rule(SecretKind::GithubToken, r"\b(?P<secret>gh[pousr]_[A-Za-z0-9]{36,255})\b", any_value),
            rule(SecretKind::GithubToken, r"\b(?P<secret>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b", any_value),
            rule(SecretKind::GitlabToken, r"\b(?P<secret>glpat-[\w-]{20,})", any_value),
            rule(SecretKind::SlackToken, r"\b(?P<secret>xox[baprs]-[0-9A-Za-z]{10,}(?:-[0-9A-Za-z]+)*)", any_value),
            rule(SecretKind::StripeKey, r"\b(?P<secret>(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,99})\b", any_value),
            rule(SecretKind::AnthropicKey, r"\b(?P<secret>sk-ant-[\w-]{32,})", letters_and_digits),
            rule(
                SecretKind::OpenAiKey,
                r"(?:^|[^\w-])(?P<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})",
                letters_and_digits,
            ),
            rule(SecretKind::GoogleApiKey, r"\b(?P<secret>AIza[0-9A-Za-z_-]{35})", any_value),
            rule(
                SecretKind::Jwt,
                r"\b(?P<secret>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
                any_value,
            ),
            rule(
                SecretKind::ConnectionString,
                r#"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|jdbc:[a-z]+)://[^\s:/@'"]+:(?P<secret>[^\s/@'"]+)@[^\s/@'"]"#,
                not_masked,
            ),
            rule(
                SecretKind::UrlWithPassword,
                r#"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'"]+:(?P<secret>[^\s/@'"]+)@[^\s/@'"]"#,
                not_masked,
            ),
            rule(SecretKind::AzureStorageKey, r"(?i)\bAccountKey=(?P<secret>[A-Za-z0-9+/]{40,}={0,2})", any_value),
            rule(
                SecretKind::Password,
                r#"(?i)(?:password|passwd|pwd|passphrase)["']?\s*(?::|=>?)\s*["']?(?P<secret>[^\s"'`,;]{8,})"#,
                looks_random,
            ),
            rule(
                SecretKind::GenericSecret,
                r#"(?i)(?:secret|api[_-]?key|token)["']?\s*(?::|=>?)\s*["']?(?P<secret>[^\s"'`,;]{16,})"#,
                looks_random,
            ),
        ]
    })
}

/// Every secret in `text`, in the order they stand; where two rules match the same characters
/// only the first rule's finding is kept.
pub fn find(text: &str) -> Vec<Finding> {
    let mut spans: Vec<(usize, usize, usize)> = Vec::new();
    for (i, rule) in rules().iter().enumerate() {
        for caps in rule.pattern.captures_iter(text) {
            let Some(m) = caps.name("secret").or_else(|| caps.get(0)) else { continue };
            if m.start() < m.end() && (rule.check)(m.as_str()) {
                spans.push((m.start(), m.end(), i));
            }
        }
    }
    spans.sort_by_key(|&(start, end, rule)| (start, rule, std::cmp::Reverse(end)));
    let mut kept: Vec<(usize, usize, usize)> = Vec::new();
    for span in spans {
        match kept.last() {
            Some(&(_, end, _)) if span.0 < end => {}
            _ => kept.push(span),
        }
    }
    kept.into_iter()
        .map(|(start, end, rule)| {
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            Finding { kind: rules()[rule].kind, start, end, line, column, masked: mask(&text[start..end]) }
        })
        .collect()
}

#[cfg(test)]
#[path = "secrets_tests.rs"]
mod tests;
