//! A person's list of threads on PostgreSQL: `store::thread_lines`, expanded here.

crate::store::thread_lines::thread_lines_store!();
