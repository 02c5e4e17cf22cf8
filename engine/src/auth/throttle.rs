//! Sign-in throttling: a guesser is slowed down, then turned away for a while.
//!
//! Attempts are counted per account (by the email typed, whether or not it names anyone, so the
//! answers never tell the two apart) and per client address. An attempt is counted when it begins,
//! not when its password has been checked, so guesses sent all at once are counted as they arrive.
//! A successful sign-in clears its account's count and takes its own attempt back from its address.
//!
//! Anyone can type six wrong passwords for someone else's email. So that this cannot lock the owner
//! out for as long as someone keeps typing, each account remembers the last few addresses it signed
//! in from; an attempt from one of those is counted for that account and address alone, with the
//! same limits, and the account's lock does not hold there. A new address still waits out the lock.
//!
//! The counts and the remembered addresses live in the memory of one server: several servers each
//! throttle on their own, and a restart forgets them. That bounds a guesser per server, which is
//! what this is for.

use super::gate::HashingGate;
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

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
/// How many addresses an account remembers signing in from; the oldest is forgotten first.
pub const KNOWN_ADDRESSES_PER_ACCOUNT: usize = 8;
/// How many accounts remember addresses; past this the one that signed in longest ago forgets.
/// Only a right password adds an account, so this is about the people of one company.
const KNOWN_ACCOUNTS: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Account(String),
    Address(IpAddr),
    /// An account tried from an address it signed in from before: counted apart from the account.
    AccountFrom(String, IpAddr),
}

#[derive(Debug, Clone)]
struct Entry {
    attempts: u32,
    last: DateTime<Utc>,
    locked_until: Option<DateTime<Utc>>,
}

/// What to do with a sign-in attempt, and whether counting it locked the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInAttempt {
    pub admission: Admission,
    /// This attempt is the one that locks its account (as seen from addresses it has not signed in
    /// from); if its password is wrong too, the account is locked, which admins are told.
    pub locks_account: bool,
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

/// The account for what was typed: case and surrounding spaces do not make a new account.
fn account_name(email: &str) -> String {
    email.trim().to_lowercase().chars().take(MAX_EMAIL_KEY).collect()
}

/// The address as it is counted: an IPv6 client usually holds a whole /64, so that is one address.
fn counted_address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
        v4 => v4,
    }
}

fn address_key(ip: IpAddr) -> Key {
    Key::Address(counted_address(ip))
}

/// The addresses one account signed in from, oldest first, and when it last did.
#[derive(Debug, Clone)]
struct KnownAddresses {
    addresses: Vec<IpAddr>,
    last: DateTime<Utc>,
}

#[derive(Debug, Default)]
struct Table {
    counts: HashMap<Key, Entry>,
    known: HashMap<String, KnownAddresses>,
}

impl Table {
    /// The key an attempt at `account` from `client` is counted under.
    fn account_key(&self, account: String, client: IpAddr) -> Key {
        let address = counted_address(client);
        match self.known.get(&account) {
            Some(k) if k.addresses.contains(&address) => Key::AccountFrom(account, address),
            _ => Key::Account(account),
        }
    }

    /// The account's own key and its key at each address it knows.
    fn every_key(&self, account: String) -> Vec<Key> {
        let known = self.known.get(&account).map(|k| k.addresses.clone()).unwrap_or_default();
        let mut keys: Vec<_> = known.into_iter().map(|a| Key::AccountFrom(account.clone(), a)).collect();
        keys.insert(0, Key::Account(account));
        keys
    }

    fn remember(&mut self, account: String, client: IpAddr, now: DateTime<Utc>) {
        if !self.known.contains_key(&account) && self.known.len() >= KNOWN_ACCOUNTS {
            let oldest = self.known.iter().min_by_key(|(_, k)| k.last).map(|(a, _)| a.clone());
            if let Some(oldest) = oldest {
                self.known.remove(&oldest);
            }
        }
        let known = self.known.entry(account).or_insert(KnownAddresses { addresses: Vec::new(), last: now });
        let address = counted_address(client);
        known.addresses.retain(|a| *a != address);
        if known.addresses.len() >= KNOWN_ADDRESSES_PER_ACCOUNT {
            known.addresses.remove(0);
        }
        known.addresses.push(address);
        known.last = now;
    }
}

fn delay_ms(attempts: u32, limits: Limits) -> u64 {
    if attempts <= limits.free {
        return 0;
    }
    let doublings = (attempts - limits.free - 1).min(16);
    (FIRST_DELAY_MS << doublings).min(MAX_DELAY_MS)
}

/// The sign-in counts, and the gate every password hash of the server goes through.
#[derive(Debug, Default)]
pub struct SignInThrottle {
    table: Mutex<Table>,
    hashing: Arc<HashingGate>,
}

impl SignInThrottle {
    /// The server's password hashing gate.
    pub fn hashing(&self) -> &Arc<HashingGate> {
        &self.hashing
    }

    /// Counts an attempt for `email` from `client` and says whether, and when, to check it.
    pub fn begin(&self, email: &str, client: IpAddr, now: DateTime<Utc>) -> SignInAttempt {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let account = table.account_key(account_name(email), client);
        let locks_whole_account = matches!(account, Key::Account(_));
        let (admission, locked) =
            Self::admit(&mut table, &[(account, ACCOUNT_LIMITS), (address_key(client), ADDRESS_LIMITS)], now);
        SignInAttempt { admission, locks_account: locked && locks_whole_account }
    }

    /// Counts a signed-in person's attempt at their own current password. It shares the account's
    /// count with sign-in, so a session left open is no quicker way to guess the password.
    /// The count is the account's and each of its known addresses' alike: a session is no way
    /// around a lock at any of them, nor they around a lock it caused.
    pub fn begin_for_account(&self, email: &str, now: DateTime<Utc>) -> Admission {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let keys: Vec<_> = table.every_key(account_name(email)).into_iter().map(|k| (k, ACCOUNT_LIMITS)).collect();
        Self::admit(&mut table, &keys, now).0
    }

    /// The current password given with `begin_for_account` was right.
    pub fn account_succeeded(&self, email: &str) {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        for key in table.every_key(account_name(email)) {
            table.counts.remove(&key);
        }
    }

    /// Counts an attempt under `keys`; also says whether it locked the first key.
    fn admit(table: &mut Table, keys: &[(Key, Limits)], now: DateTime<Utc>) -> (Admission, bool) {
        let table = &mut table.counts;
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
            return (Admission::Refuse { retry_after_secs: ms.div_ceil(1000).max(1) }, false);
        }
        let mut delay = 0;
        let mut locked_first = false;
        for (i, (key, limits)) in keys.iter().enumerate() {
            let limits = *limits;
            let entry = table.entry(key.clone()).or_insert(Entry { attempts: 0, last: now, locked_until: None });
            entry.attempts = entry.attempts.saturating_add(1);
            entry.last = now;
            if entry.attempts >= limits.lock_at {
                entry.locked_until = Some(now + Duration::seconds(LOCKOUT_SECS));
                locked_first |= i == 0;
            }
            delay = delay.max(delay_ms(entry.attempts, limits));
        }
        (Admission::Check { delay_ms: delay }, locked_first)
    }

    /// The attempt begun for `email` from `client` signed in: its count is cleared, and the
    /// account remembers the address. The right password from an address the account knew clears
    /// only that address's own count: a lock that guesses from elsewhere caused still holds for
    /// every other address.
    pub fn succeeded(&self, email: &str, client: IpAddr, now: DateTime<Utc>) {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let account = account_name(email);
        let key = table.account_key(account.clone(), client);
        table.counts.remove(&key);
        table.remember(account, client, now);
        if let Some(entry) = table.counts.get_mut(&address_key(client)) {
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
        (0..n).map(|_| t.begin(email, client, now).admission).collect()
    }

    #[test]
    fn an_account_is_slowed_then_locked_then_checked_again_after_the_wait() {
        let t = SignInThrottle::default();
        let got = run(&t, "ada@acme.example", HOME, 7, at(0));
        let check = |ms| Admission::Check { delay_ms: ms };
        assert_eq!(got[..6], [check(0), check(0), check(0), check(500), check(1000), check(2000)]);
        assert_eq!(got[6], Admission::Refuse { retry_after_secs: 300 });
        assert_eq!(t.begin("ada@acme.example", HOME, at(299)).admission, Admission::Refuse { retry_after_secs: 1 });
        // After the wait one more try is checked (and locks again unless it succeeds).
        assert_eq!(t.begin("ada@acme.example", HOME, at(300)).admission, check(2000));
        t.succeeded("ada@acme.example", HOME, at(300));
        assert_eq!(t.begin("ada@acme.example", HOME, at(301)).admission, check(0));
    }

    #[test]
    fn guesses_from_elsewhere_do_not_lock_the_owner_out_where_they_signed_in_before() {
        let t = SignInThrottle::default();
        let attacker = IpAddr::V4(std::net::Ipv4Addr::new(203, 0, 113, 66));
        let fresh = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, 1));
        // The owner signed in from home once.
        assert_eq!(t.begin("ada@acme.example", HOME, at(0)).admission, Admission::Check { delay_ms: 0 });
        t.succeeded("ada@acme.example", HOME, at(0));
        // Someone else's sixth wrong try locks the account, and says so once.
        let tries: Vec<_> = (0..6).map(|_| t.begin("ada@acme.example", attacker, at(10))).collect();
        assert_eq!(tries.iter().filter(|a| a.locks_account).count(), 1);
        assert!(tries[5].locks_account);
        assert!(matches!(t.begin("ada@acme.example", attacker, at(11)).admission, Admission::Refuse { .. }));
        assert!(matches!(t.begin("ADA@acme.example", fresh, at(11)).admission, Admission::Refuse { .. }));
        // From home, the account is counted on its own: checked at once, and a success there
        // leaves the lock in place for everyone else.
        assert_eq!(t.begin("ada@acme.example", HOME, at(12)).admission, Admission::Check { delay_ms: 0 });
        t.succeeded("ada@acme.example", HOME, at(12));
        assert!(matches!(t.begin("ada@acme.example", fresh, at(13)).admission, Admission::Refuse { .. }));
        // Home has the same limits: six wrong tries there lock home too, without telling anyone
        // about the account (that lock is home's own).
        let home: Vec<_> = (0..6).map(|_| t.begin("ada@acme.example", HOME, at(14))).collect();
        assert!(home.iter().all(|a| !a.locks_account && matches!(a.admission, Admission::Check { .. })));
        assert!(matches!(t.begin("ada@acme.example", HOME, at(15)).admission, Admission::Refuse { .. }));
    }

    #[test]
    fn wrong_current_passwords_lock_sign_in_at_known_addresses_too() {
        let t = SignInThrottle::default();
        t.begin("ada@acme.example", HOME, at(0));
        t.succeeded("ada@acme.example", HOME, at(0));
        for _ in 0..6 {
            t.begin_for_account("ada@acme.example", at(1));
        }
        assert!(matches!(t.begin("ada@acme.example", HOME, at(2)).admission, Admission::Refuse { .. }));
        // And wrong passwords at a known address stop the session's tries as well.
        let u = SignInThrottle::default();
        u.begin("bob@acme.example", HOME, at(0));
        u.succeeded("bob@acme.example", HOME, at(0));
        run(&u, "bob@acme.example", HOME, 6, at(1));
        assert!(matches!(u.begin_for_account("bob@acme.example", at(2)), Admission::Refuse { .. }));
        // The right current password clears every count of the account.
        let v = SignInThrottle::default();
        v.begin("eve@acme.example", HOME, at(0));
        v.succeeded("eve@acme.example", HOME, at(0));
        run(&v, "eve@acme.example", HOME, 3, at(1));
        v.begin_for_account("eve@acme.example", at(1));
        v.account_succeeded("eve@acme.example");
        assert_eq!(v.begin("eve@acme.example", HOME, at(2)).admission, Admission::Check { delay_ms: 0 });
    }

    #[test]
    fn an_account_remembers_only_its_latest_addresses() {
        let t = SignInThrottle::default();
        let address = |i: u8| IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, i));
        for i in 0..=KNOWN_ADDRESSES_PER_ACCOUNT as u8 {
            t.begin("ada@acme.example", address(i), at(i.into()));
            t.succeeded("ada@acme.example", address(i), at(i.into()));
        }
        let attacker = IpAddr::V4(std::net::Ipv4Addr::new(203, 0, 113, 66));
        run(&t, "ada@acme.example", attacker, 6, at(20));
        // The first address was pushed out by the newer ones; the latest still gets through.
        assert!(matches!(t.begin("ada@acme.example", address(0), at(21)).admission, Admission::Refuse { .. }));
        let latest = address(KNOWN_ADDRESSES_PER_ACCOUNT as u8);
        assert_eq!(t.begin("ada@acme.example", latest, at(21)).admission, Admission::Check { delay_ms: 0 });
        let table = t.table.lock().unwrap();
        assert_eq!(table.known["ada@acme.example"].addresses.len(), KNOWN_ADDRESSES_PER_ACCOUNT);
    }

    #[test]
    fn wrong_current_passwords_share_the_account_count_with_sign_in() {
        let t = SignInThrottle::default();
        let got: Vec<_> = (0..3).map(|_| t.begin_for_account("ada@acme.example", at(0))).collect();
        assert_eq!(got, vec![Admission::Check { delay_ms: 0 }; 3]);
        run(&t, "ada@acme.example", HOME, 3, at(1));
        assert_eq!(t.begin_for_account("Ada@acme.example", at(2)), Admission::Refuse { retry_after_secs: 299 });
        assert!(
            matches!(t.begin("ada@acme.example", HOME, at(2)).admission, Admission::Refuse { .. }),
            "sign-in waits too"
        );
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
        assert!(matches!(t.begin("  ADA@Acme.Example ", other, at(1)).admission, Admission::Refuse { .. }));
    }

    #[test]
    fn one_address_trying_many_accounts_is_locked() {
        let t = SignInThrottle::default();
        for i in 0..ADDRESS_LIMITS.lock_at {
            assert!(matches!(
                t.begin(&format!("guess{i}@acme.example"), HOME, at(0)).admission,
                Admission::Check { .. }
            ));
        }
        assert_eq!(t.begin("fresh@acme.example", HOME, at(0)).admission, Admission::Refuse { retry_after_secs: 300 });
        let elsewhere = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, 1));
        assert_eq!(t.begin("fresh@acme.example", elsewhere, at(0)).admission, Admission::Check { delay_ms: 0 });
    }

    #[test]
    fn one_ipv6_network_counts_as_one_address() {
        let t = SignInThrottle::default();
        for i in 0..ADDRESS_LIMITS.lock_at {
            let ip: IpAddr = format!("2001:db8::{:x}", i + 1).parse().unwrap();
            t.begin(&format!("guess{i}@acme.example"), ip, at(0));
        }
        let same_net: IpAddr = "2001:db8::ffff:1".parse().unwrap();
        assert!(matches!(t.begin("fresh@acme.example", same_net, at(0)).admission, Admission::Refuse { .. }));
    }

    #[test]
    fn quiet_keys_are_forgotten() {
        let t = SignInThrottle::default();
        run(&t, "ada@acme.example", HOME, 5, at(0));
        assert_eq!(
            t.begin("ada@acme.example", HOME, at(FORGET_AFTER_SECS + 4)).admission,
            Admission::Check { delay_ms: 0 }
        );
    }

    #[test]
    fn the_sentence_names_whole_minutes() {
        assert_eq!(throttled_message(300), "Too many sign-in attempts. Wait 5 minutes, then try again.");
        assert_eq!(throttled_message(1), "Too many sign-in attempts. Wait 1 minute, then try again.");
        assert_eq!(throttled_message(61), "Too many sign-in attempts. Wait 2 minutes, then try again.");
    }
}
