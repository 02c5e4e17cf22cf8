//! Threads, runs, their steps and events on SQLite: `store::runs`, expanded here.

crate::store::runs::runs_store!();
