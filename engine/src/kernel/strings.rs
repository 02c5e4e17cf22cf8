//! The string enums' two directions, written once: `as_str` (how the store and the API spell a
//! value) and `parse` (the same spelling back, anything else refused).

/// `string_enum!(Kind { A => "a", B => "b" })` gives `Kind::as_str` and `Kind::parse`, each
/// value spelled once. The enum itself stays where it is declared, with its docs and derives.
#[macro_export]
macro_rules! string_enum {
    ($name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $name {
            pub fn as_str(&self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Light {
        Red,
        Green,
    }
    crate::string_enum!(Light { Red => "red", Green => "green" });

    #[test]
    fn each_value_reads_back_as_itself_and_nothing_else_parses() {
        for l in [Light::Red, Light::Green] {
            assert_eq!(Light::parse(l.as_str()), Some(l));
        }
        assert_eq!(Light::parse("Red"), None);
        assert_eq!(Light::parse(""), None);
    }
}
