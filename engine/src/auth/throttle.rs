//! Sign-in throttling: a guesser is slowed down, then turned away for a while.
//!
//! Attempts are counted per account (by the email typed, whether or not it names anyone, so the
//! answers never tell the two apart) and per client address. An attempt is counted when it begins,
//! not when its password has been checked, so guesses sent all at once are counted as they arrive.
//! A successful sign-in clears its account's count and takes its own attempt back from its address.
//!
//! The counts live in the memory of one server: several servers each throttle on their own, and a
//! restart forgets them. That bounds a guesser per server, which is what this is for.

use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// How many attempts a key gets before it is slowed down and then locked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Attempts answered at full speed.
    pub free: u32,
    /// The attempt that locks the key (it is still checked); later ones are refused until the lock ends.
    pub lock_at: u32,
}

/// One account: three tries at full speed, three slowed ones, then a wait.
pub const ACCOUNT_LIMITS: Limits = Limits { free: 3, lock_at: 6 };
/// One address, across every account it tries: an office behind one address still signs in.
pub const ADDRESS_LIMITS: Limits = Limits { free: 10, lock_at: 30 };
/// How long a locked key waits.
pub const LOCKOUT_SECS: i64 = 5 * 60;
/// A key with no attempt for this long starts again from nothing.
pub const FORGET_AFTER_SECS: i64 = 15 * 60;
/// The first slowed attempt waits this long; each after it twice as long, up to `MAX_DELAY_MS`.
pub const FIRST_DELAY_MS: u64 = 500;
pub const MAX_DELAY_MS: u64 = 2_000;
/// Beyond this many keys, those that no longer matter are dropped, so made-up emails cannot grow
/// the table without end.
const PRUNE_ABOVE: usize = 10_000;
/// Longer than any email an account can have; longer input is cut here so it cannot bloat the table.
const MAX_EMAIL_KEY: usize = 320;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Account(String),
    Address(IpAddr),
}

#[derive(Debug, Clone)]
struct Entry {
    attempts: u32,
    last: DateTime<Utc>,
    locked_until: Option<DateTime<Utc>>,
}

/// What to do with a sign-in attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Check the password after waiting this many milliseconds (0: at once).
    Check { delay_ms: u64 },
    /// Do not check anything; the lock ends in this many seconds.
    Refuse { retry_after_secs: u64 },
}

/// The sentence for a refused attempt: the same for every account, known or not.
pub fn throttled_message(retry_after_secs: u64) -> String {
    let minutes = retry_after_secs.div_ceil(60).max(1);
    let unit = if minutes == 1 { "minute" } else { "minutes" };
    format!("Too many sign-in attempts. Wait {minutes} {unit}, then try again.")
}

/// The sentence for a refused change of one's own password.
pub fn password_throttled_message(retry_after_secs: u64) -> String {
    let minutes = retry_after_secs.div_ceil(60).max(1);
    let unit = if minutes == 1 { "minute" } else { "minutes" };
    format!("Too many wrong passwords for this account. Wait {minutes} {unit}, then try again; nothing was changed.")
}

/// The account key for what was typed: case and surrounding spaces do not make a new account.
fn account_key(email: &str) -> Key {
    Key::Account(email.trim().to_lowercase().chars().take(MAX_EMAIL_KEY).collect())
}

/// The address key: an IPv6 client usually holds a whole /64, so that is one address here.
fn address_key(ip: IpAddr) -> Key {
    let ip = match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
        v4 => v4,
    };
    Key::Address(ip)
}

fn delay_ms(attempts: u32, limits: Limits) -> u64 {
    if attempts <= limits.free {
        return 0;
    }
    let doublings = (attempts - limits.free - 1).min(16);
    (FIRST_DELAY_MS << doublings).min(MAX_DELAY_MS)
}

#[derive(Debug, Default)]
pub struct SignInThrottle {
    keys: Mutex<HashMap<Key, Entry>>,
}

impl SignInThrottle {
    /// Counts an attempt for `email` from `client` and says whether, and when, to check it.
    pub fn begin(&self, email: &str, client: IpAddr, now: DateTime<Utc>) -> Admission {
        self.admit(&[(account_key(email), ACCOUNT_LIMITS), (address_key(client), ADDRESS_LIMITS)], now)
    }

    /// Counts a signed-in person's attempt at their own current password. It shares the account's
    /// count with sign-in, so a session left open is no quicker way to guess the password.
    pub fn begin_for_account(&self, email: &str, now: DateTime<Utc>) -> Admission {
        self.admit(&[(account_key(email), ACCOUNT_LIMITS)], now)
    }

    /// The current password given with `begin_for_account` was right.
    pub fn account_succeeded(&self, email: &str) {
        self.keys.lock().unwrap_or_else(|e| e.into_inner()).remove(&account_key(email));
    }

    fn admit(&self, keys: &[(Key, Limits)], now: DateTime<Utc>) -> Admission {
        let mut table = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        if table.len() > PRUNE_ABOVE {
            table.retain(|_, e| !forgotten(e, now));
        }
        for (key, _) in keys {
            if table.get(key).is_some_and(|e| forgotten(e, now)) {
                table.remove(key);
            }
        }
        let retry_after = keys
            .iter()
            .filter_map(|(key, _)| table.get(key)?.locked_until.filter(|until| *until > now))
            .max()
            .map(|until| (until - now).num_milliseconds().max(0) as u64);
        if let Some(ms) = retry_after {
            return Admission::Refuse { retry_after_secs: ms.div_ceil(1000).max(1) };
        }
        let mut delay = 0;
        for (key, limits) in keys {
            let limits = *limits;
            let entry = table.entry(key.clone()).or_insert(Entry { attempts: 0, last: now, locked_until: None });
            entry.attempts = entry.attempts.saturating_add(1);
            entry.last = now;
            if entry.attempts >= limits.lock_at {
                entry.locked_until = Some(now + Duration::seconds(LOCKOUT_SECS));
            }
            delay = delay.max(delay_ms(entry.attempts, limits));
        }
        Admission::Check { delay_ms: delay }
    }

    /// The attempt begun for `email` from `client` signed in.
    pub fn succeeded(&self, email: &str, client: IpAddr) {
        let mut table = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        table.remove(&account_key(email));
        if let Some(entry) = table.get_mut(&address_key(client)) {
            entry.attempts = entry.attempts.saturating_sub(1);
            if entry.attempts < ADDRESS_LIMITS.lock_at {
                entry.locked_until = None;
            }
        }
    }
}

fn forgotten(e: &Entry, now: DateTime<Utc>) -> bool {
    e.locked_until.is_none_or(|until| until <= now) && now - e.last >= Duration::seconds(FORGET_AFTER_SECS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }
    const HOME: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 7));

    fn run(t: &SignInThrottle, email: &str, client: IpAddr, n: u32, now: DateTime<Utc>) -> Vec<Admission> {
        (0..n).map(|_| t.begin(email, client, now)).collect()
    }

    #[test]
    fn an_account_is_slowed_then_locked_then_checked_again_after_the_wait() {
        let t = SignInThrottle::default();
        let got = run(&t, "ada@acme.example", HOME, 7, at(0));
        let check = |ms| Admission::Check { delay_ms: ms };
        assert_eq!(got[..6], [check(0), check(0), check(0), check(500), check(1000), check(2000)]);
        assert_eq!(got[6], Admission::Refuse { retry_after_secs: 300 });
        assert_eq!(t.begin("ada@acme.example", HOME, at(299)), Admission::Refuse { retry_after_secs: 1 });
        // After the wait one more try is checked (and locks again unless it succeeds).
        assert_eq!(t.begin("ada@acme.example", HOME, at(300)), check(2000));
        t.succeeded("ada@acme.example", HOME);
        assert_eq!(t.begin("ada@acme.example", HOME, at(301)), check(0));
    }

    #[test]
    fn wrong_current_passwords_share_the_account_count_with_sign_in() {
        let t = SignInThrottle::default();
        let got: Vec<_> = (0..3).map(|_| t.begin_for_account("ada@acme.example", at(0))).collect();
        assert_eq!(got, vec![Admission::Check { delay_ms: 0 }; 3]);
        run(&t, "ada@acme.example", HOME, 3, at(1));
        assert_eq!(t.begin_for_account("Ada@acme.example", at(2)), Admission::Refuse { retry_after_secs: 299 });
        assert!(matches!(t.begin("ada@acme.example", HOME, at(2)), Admission::Refuse { .. }), "sign-in waits too");
        // A right password clears the account, never another one's count.
        t.begin_for_account("bob@acme.example", at(3));
        t.account_succeeded("bob@acme.example");
        assert!(matches!(t.begin_for_account("ada@acme.example", at(3)), Admission::Refuse { .. }));
        assert_eq!(t.begin_for_account("bob@acme.example", at(3)), Admission::Check { delay_ms: 0 });
        assert_eq!(
            password_throttled_message(299),
            "Too many wrong passwords for this account. Wait 5 minutes, then try again; nothing was changed."
        );
    }

    #[test]
    fn case_and_spaces_do_not_make_a_new_account() {
        let t = SignInThrottle::default();
        run(&t, "ada@acme.example", HOME, 6, at(0));
        let other = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, 1));
        assert!(matches!(t.begin("  ADA@Acme.Example ", other, at(1)), Admission::Refuse { .. }));
    }

    #[test]
    fn one_address_trying_many_accounts_is_locked() {
        let t = SignInThrottle::default();
        for i in 0..ADDRESS_LIMITS.lock_at {
            assert!(matches!(t.begin(&format!("guess{i}@acme.example"), HOME, at(0)), Admission::Check { .. }));
        }
        assert_eq!(t.begin("fresh@acme.example", HOME, at(0)), Admission::Refuse { retry_after_secs: 300 });
        let elsewhere = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, 1));
        assert_eq!(t.begin("fresh@acme.example", elsewhere, at(0)), Admission::Check { delay_ms: 0 });
    }

    #[test]
    fn one_ipv6_network_counts_as_one_address() {
        let t = SignInThrottle::default();
        for i in 0..ADDRESS_LIMITS.lock_at {
            let ip: IpAddr = format!("2001:db8::{:x}", i + 1).parse().unwrap();
            t.begin(&format!("guess{i}@acme.example"), ip, at(0));
        }
        let same_net: IpAddr = "2001:db8::ffff:1".parse().unwrap();
        assert!(matches!(t.begin("fresh@acme.example", same_net, at(0)), Admission::Refuse { .. }));
    }

    #[test]
    fn quiet_keys_are_forgotten() {
        let t = SignInThrottle::default();
        run(&t, "ada@acme.example", HOME, 5, at(0));
        assert_eq!(t.begin("ada@acme.example", HOME, at(FORGET_AFTER_SECS + 4)), Admission::Check { delay_ms: 0 });
    }

    #[test]
    fn the_sentence_names_whole_minutes() {
        assert_eq!(throttled_message(300), "Too many sign-in attempts. Wait 5 minutes, then try again.");
        assert_eq!(throttled_message(1), "Too many sign-in attempts. Wait 1 minute, then try again.");
        assert_eq!(throttled_message(61), "Too many sign-in attempts. Wait 2 minutes, then try again.");
    }
}
