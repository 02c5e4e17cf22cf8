//! A person's list of threads on SQLite: `store::thread_lines`, expanded here.

crate::store::thread_lines::thread_lines_store!();
