//! The error of an area whose refusals are all answered alike: `refusal_error!(Name)` declares
//! one, with its `From<StoreError>` and its wording, so two areas that answer this way each have
//! their own type without writing it twice.

/// Declares `pub enum $name { NotFound, NotAllowed, Invalid, Secret, Internal }`. Every refusal
/// is the person's to read and is answered as `Invalid` with code `refused` (`secret` for a
/// secret), so the API does not tell "not found" from "not allowed": what a person may see of
/// their memory is theirs alone. A store failure is the internal case, logged and never shown.
#[macro_export]
macro_rules! refusal_error {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
        pub enum $name {
            #[error("{0}")]
            NotFound(String),
            #[error("{0}")]
            NotAllowed(String),
            #[error("{0}")]
            Invalid(String),
            /// The text holds a secret; nothing was saved.
            #[error("{0}")]
            Secret($crate::secrets::SecretRefusal),
            #[error("Something went wrong on our side; nothing was changed. Try again.")]
            Internal(String),
        }

        impl From<$crate::kernel::StoreError> for $name {
            fn from(e: $crate::kernel::StoreError) -> Self {
                $name::Internal(e.to_string())
            }
        }

        impl $crate::error::UserSafe for $name {
            fn kind(&self) -> $crate::error::ErrorKind {
                match self {
                    $name::Internal(_) => $crate::error::ErrorKind::Internal,
                    _ => $crate::error::ErrorKind::Invalid,
                }
            }

            fn code(&self) -> &'static str {
                match self {
                    $name::Internal(_) => "internal",
                    $name::Secret(_) => "secret",
                    _ => "refused",
                }
            }

            fn internal_detail(&self) -> Option<String> {
                match self {
                    $name::Internal(detail) => Some(detail.clone()),
                    _ => None,
                }
            }
        }
    };
}
