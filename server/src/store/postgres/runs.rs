//! Threads, runs, their steps and events on PostgreSQL: `store::runs`, expanded here.

crate::store::runs::runs_store!();
