//! Person memory's stores written once for both backends (see "Written once" in `store`).

pub(crate) mod prepare;
