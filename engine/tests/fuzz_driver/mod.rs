//! The fuzz targets' driver, shared by `engine/tests/fuzz.rs` and `server/tests/fuzz.rs`.
//!
//! - The short run (`scripts/check`) tries `SHORT_RUN_CASES` inputs per target from a fixed seed, so
//!   it is the same run every time and passes or fails alike.
//! - `ENGRAM_FUZZ_SECONDS=n` runs each target for n seconds from a fresh seed, in batches, and
//!   prints the inputs tried and the seed; `ENGRAM_FUZZ_SEED` replays a seed. `scripts/fuzz` runs that.
//!
//! A panic inside a target is caught by proptest and reported with the input shrunk.

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::time::{Duration, Instant};

/// Inputs per target in the short run: about a minute for all the targets on two cores, in the
/// debug build `scripts/check` makes.
const SHORT_RUN_CASES: u32 = 400;
/// Inputs per batch in a timed run: small enough that a run stops close to its time.
const BATCH_CASES: u32 = 64;

fn config(cases: u32) -> Config {
    // No persistence file: a failure is reported with its seed and shrunk input instead.
    Config { cases, failure_persistence: None, max_shrink_iters: 4096, ..Config::default() }
}

/// Runs one target: the fixed short run, or a timed run when `ENGRAM_FUZZ_SECONDS` is set.
pub fn fuzz<S>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    let env = |key: &str| std::env::var(key).ok().filter(|v| !v.is_empty());
    let Some(seconds) = env("ENGRAM_FUZZ_SECONDS") else {
        let cases =
            env("ENGRAM_FUZZ_CASES").map_or(SHORT_RUN_CASES, |c| c.parse().expect("ENGRAM_FUZZ_CASES is a count"));
        let mut runner = TestRunner::new_with_rng(config(cases), TestRng::deterministic_rng(RngAlgorithm::ChaCha));
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz {name} (short run, fixed seed): {e}");
        }
        return;
    };
    let budget = Duration::from_secs(seconds.parse().expect("ENGRAM_FUZZ_SECONDS is a number of seconds"));
    let seed: u64 = env("ENGRAM_FUZZ_SEED").map_or_else(
        || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64,
        |s| s.parse().expect("ENGRAM_FUZZ_SEED is a number"),
    );
    let started = Instant::now();
    let (mut batch, mut inputs) = (0u64, 0u64);
    while started.elapsed() < budget {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(&batch.to_le_bytes());
        let mut runner =
            TestRunner::new_with_rng(config(BATCH_CASES), TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz {name}: seed {seed}, batch {batch}, after {inputs} inputs: {e}");
        }
        inputs += u64::from(BATCH_CASES);
        batch += 1;
    }
    println!("fuzz {name}: {inputs} inputs in {:.0} s, seed {seed}, nothing found", started.elapsed().as_secs_f64());
}
