//! `store::schedules` on PostgreSQL, expanded here.

crate::store::schedules::schedules_store!();
