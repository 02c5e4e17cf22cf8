//! What people type when they add someone to the organisation, parsed once at the edge: an email
//! address and a person's or team's name.

use super::OrgError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// An email address as a sign-in name: trimmed and lower-cased, one `@` with something on each
/// side and a dot in the domain. Whether mail reaches it is not Engram's to know: no mail is sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EmailAddress(String);

impl EmailAddress {
    pub fn parse(s: &str) -> Result<Self, OrgError> {
        let e = s.trim().to_lowercase();
        let bad = || OrgError::Invalid(format!("{:?} is not an email address, such as ada@example.com", s.trim()));
        if e.is_empty() {
            return Err(OrgError::Invalid("An email address is needed".to_string()));
        }
        if e.chars().count() > 254 || e.chars().any(|c| c.is_whitespace() || c.is_control() || c == ',') {
            return Err(bad());
        }
        let (local, domain) = e.split_once('@').ok_or_else(bad)?;
        let domain_ok = !domain.contains('@')
            && domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..");
        if local.is_empty() || !domain_ok {
            return Err(bad());
        }
        Ok(Self(e))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A person's or a team's display name: trimmed, on one line, at most 80 characters. `what` names
/// the thing in the message: "A person needs a name".
pub fn parse_display_name(s: &str, what: &str) -> Result<String, OrgError> {
    let name = s.trim();
    if name.is_empty() {
        return Err(OrgError::Invalid(format!("{what} needs a name")));
    }
    if name.chars().any(|c| c.is_control()) {
        return Err(OrgError::Invalid(format!("{what}'s name must be on one line")));
    }
    if name.chars().count() > 80 {
        return Err(OrgError::Invalid(format!("{what}'s name can be at most 80 characters")));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_trimmed_lower_cased_and_checked() {
        assert_eq!(EmailAddress::parse("  Ada@Acme.Example ").unwrap().as_str(), "ada@acme.example");
        for bad in ["ada", "ada@", "@acme.example", "ada@acme", "ada@@acme.example", "a da@acme.example", "ada@acme..x"]
        {
            assert!(EmailAddress::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(EmailAddress::parse(" ").unwrap_err().to_string(), "An email address is needed");
    }

    #[test]
    fn names_are_one_bounded_line() {
        assert_eq!(parse_display_name("  Ada Lovelace ", "A person").unwrap(), "Ada Lovelace");
        assert_eq!(parse_display_name("", "A team").unwrap_err().to_string(), "A team needs a name");
        assert!(parse_display_name("a\nb", "A person").is_err());
        assert!(parse_display_name(&"x".repeat(81), "A person").is_err());
    }
}
