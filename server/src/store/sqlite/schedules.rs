//! `store::schedules` on SQLite, expanded here.

crate::store::schedules::schedules_store!();
