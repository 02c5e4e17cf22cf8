//! `port!`: a use case's port, declared as the sum of the stores it calls.

/// Declares a port: a trait that is the sum of the stores a use case calls, answered by anything
/// that has them all. A wider port names the narrower ones as its parts, so an `Arc<dyn Store>`
/// casts down to any of them, and a test can answer one with a small fake of just those stores.
#[macro_export]
macro_rules! port {
    ($(#[$doc:meta])* $name:ident: $($part:path),+ $(,)?) => {
        $(#[$doc])*
        pub trait $name: $($part +)+ {}
        impl<T: $($part +)+ ?Sized> $name for T {}
    };
}
