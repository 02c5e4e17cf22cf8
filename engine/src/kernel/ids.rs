//! The ids every area passes around, each its own type so one is never taken for another.

/// A numeric id of its own type, shown as its number.
macro_rules! id_type {
    ($name:ident) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        pub struct $name(pub i64);
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id_type!(PersonId);
id_type!(TeamId);
id_type!(RoleId);
id_type!(AgentId);
id_type!(ThreadId);
id_type!(RunId);
id_type!(MessageId);
