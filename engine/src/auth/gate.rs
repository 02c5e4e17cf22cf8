//! How many password hashes a server runs at once, across every path that hashes or checks a
//! password for a request: sign-in, setup, invites, a password change, adding people.
//!
//! One argon2 hash holds 19 MiB and tens of milliseconds of a core; 300 sign-ins at once grew a
//! server by 5.7 GiB. So only about twice as many hashes as there are cores run at once, and one
//! beyond that is refused at once (the sign-in answers 429 with `Retry-After`) rather than queued:
//! a queue would hold the request, its connection and its memory just the same.
//!
//! The gate belongs to one server (it sits beside the sign-in counts, which the sign-in and the
//! organisation services share); the command line and the demo's seed hash outside any server.

use super::{hash_now, verify_now, AuthError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// How long someone turned away by a full gate is asked to wait: hashes end within a second.
pub const BUSY_RETRY_AFTER_SECS: u64 = 1;

/// At most `size` holders at once; one more is refused, never kept waiting.
#[derive(Debug)]
pub struct HashingGate {
    running: AtomicUsize,
    size: usize,
}

/// One place in the gate, given back when dropped (also when the hash it guarded panicked).
#[derive(Debug)]
pub struct HashingPermit {
    gate: Arc<HashingGate>,
}

impl HashingGate {
    pub const fn new(size: usize) -> Self {
        Self { running: AtomicUsize::new(0), size }
    }

    /// Twice the cores this process may use (two when that is unknown).
    pub fn for_this_machine() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        Self::new(2 * cores)
    }

    /// A place, or `None` at once when all `size` are taken.
    pub fn try_enter(self: &Arc<Self>) -> Option<HashingPermit> {
        self.running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < self.size).then_some(n + 1))
            .ok()
            .map(|_| HashingPermit { gate: self.clone() })
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Hashes a new password off the async executor, or refuses at once (`AuthError::busy`).
    pub async fn hash(self: &Arc<Self>, password: String) -> Result<String, AuthError> {
        let permit = self.try_enter().ok_or_else(AuthError::busy)?;
        tokio::task::spawn_blocking(move || {
            // Held until the hash is done, even if whoever asked for it has gone.
            let _permit = permit;
            hash_now(&password)
        })
        .await
        .map_err(|e| AuthError::Internal(e.to_string()))?
    }

    /// Checks a password against its hash off the async executor, or refuses at once.
    pub async fn verify(self: &Arc<Self>, password: String, hash: String) -> Result<bool, AuthError> {
        let permit = self.try_enter().ok_or_else(AuthError::busy)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            verify_now(&password, &hash)
        })
        .await
        .map_err(|e| AuthError::Internal(e.to_string()))?
    }
}

impl Default for HashingGate {
    fn default() -> Self {
        Self::for_this_machine()
    }
}

impl Drop for HashingPermit {
    fn drop(&mut self) {
        self.gate.running.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_gate_refuses_the_next_at_once_and_takes_one_again_when_a_place_is_given_back() {
        let gate = Arc::new(HashingGate::new(3));
        let mut held: Vec<_> = (0..3).map(|i| gate.try_enter().unwrap_or_else(|| panic!("place {i}"))).collect();
        assert!(gate.try_enter().is_none(), "the fourth is refused");
        assert!(gate.try_enter().is_none(), "and so is the fifth");
        drop(held.pop());
        let again = gate.try_enter();
        assert!(again.is_some(), "a place given back is taken again");
        assert!(gate.try_enter().is_none());
    }

    #[test]
    fn threads_racing_for_places_never_hold_more_than_the_size() {
        let gate = Arc::new(HashingGate::new(4));
        let most = std::sync::Arc::new(AtomicUsize::new(0));
        let now = std::sync::Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..16)
            .map(|_| {
                let (gate, most, now) = (gate.clone(), most.clone(), now.clone());
                std::thread::spawn(move || {
                    for _ in 0..500 {
                        if let Some(_permit) = gate.try_enter() {
                            let holding = now.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(holding, Ordering::SeqCst);
                            std::thread::yield_now();
                            now.fetch_sub(1, Ordering::SeqCst);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!((1..=4).contains(&most.load(Ordering::SeqCst)), "{}", most.load(Ordering::SeqCst));
        assert_eq!(gate.running.load(Ordering::SeqCst), 0, "every place was given back");
    }

    #[test]
    fn a_server_gate_is_twice_the_cores() {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        assert_eq!(HashingGate::default().size(), 2 * cores);
    }

    #[tokio::test]
    async fn a_full_gate_refuses_a_hash_and_a_check_at_once() {
        let gate = Arc::new(HashingGate::new(1));
        let hash = gate.hash("correct horse".into()).await.unwrap();
        assert!(gate.verify("correct horse".into(), hash.clone()).await.unwrap());
        let held = gate.try_enter();
        assert_eq!(gate.hash("x".into()).await, Err(AuthError::busy()));
        assert_eq!(gate.verify("correct horse".into(), hash.clone()).await, Err(AuthError::busy()));
        assert_eq!(AuthError::busy().to_string(), crate::auth::BUSY_MESSAGE);
        drop(held);
        assert!(gate.verify("correct horse".into(), hash).await.unwrap(), "and checks again once a place is free");
    }
}
