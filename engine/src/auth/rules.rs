//! The rules every new password meets, wherever it is chosen: first-run setup, an invite link, a
//! change of one's own password and `engram password`. Sign-in checks nothing of this: a password
//! that was accepted once keeps working.

use super::AuthError;

/// The shortest password accepted.
pub const MIN_LENGTH: usize = 8;
/// Longer input is refused before hashing, so nobody can make the server hash megabytes.
pub const MAX_LENGTH: usize = 256;

/// A password that met the rules. Its text is never logged or shown.
#[derive(Clone, PartialEq, Eq)]
pub struct NewPassword(String);

impl std::fmt::Debug for NewPassword {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NewPassword(…)")
    }
}

impl NewPassword {
    pub fn parse(password: &str) -> Result<Self, AuthError> {
        let length = password.chars().count();
        if length < MIN_LENGTH {
            return Err(AuthError::Invalid(format!("A password needs at least {MIN_LENGTH} characters")));
        }
        if length > MAX_LENGTH {
            return Err(AuthError::Invalid(format!("A password can be at most {MAX_LENGTH} characters")));
        }
        if is_common(password) {
            return Err(AuthError::Invalid(
                "That password is one of the most common ones, so it is guessed first; choose another".to_string(),
            ));
        }
        Ok(Self(password.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Compared without case and without surrounding spaces: "Password1 " is as guessable as
/// "password1".
fn is_common(password: &str) -> bool {
    let p = password.trim().to_lowercase();
    COMMON.iter().any(|c| *c == p)
}

/// The most common passwords of at least eight characters in the public breach lists, lower-cased.
const COMMON: &[&str] = &[
    "12345678",
    "123456789",
    "1234567890",
    "12345678910",
    "123123123",
    "11111111",
    "111111111",
    "00000000",
    "87654321",
    "88888888",
    "99999999",
    "66666666",
    "55555555",
    "12341234",
    "11223344",
    "1q2w3e4r",
    "1q2w3e4r5t",
    "1qaz2wsx",
    "zaq12wsx",
    "q1w2e3r4",
    "qwertyui",
    "qwertyuiop",
    "qwerty123",
    "qwerty1234",
    "asdfghjk",
    "asdfghjkl",
    "zxcvbnm1",
    "password",
    "password1",
    "password12",
    "password123",
    "password!",
    "passw0rd",
    "p@ssw0rd",
    "p@ssword",
    "iloveyou",
    "iloveyou1",
    "sunshine",
    "princess",
    "football",
    "baseball",
    "welcome1",
    "welcome123",
    "letmein1",
    "trustno1",
    "superman",
    "starwars",
    "whatever",
    "computer",
    "michelle",
    "jennifer",
    "corvette",
    "mercedes",
    "midnight",
    "internet",
    "maverick",
    "changeme",
    "changeme1",
    "abcd1234",
    "abc12345",
    "abcdefgh",
    "a1b2c3d4",
    "admin123",
    "administrator",
    "adminadmin",
    "qazwsxedc",
    "1qazxsw2",
    "monkey123",
    "dragon123",
    "charlie1",
    "shadow123",
    "master123",
    "samsung1",
    "chocolate",
    "butterfly",
    "liverpool",
    "yankees1",
    "basketball",
    "football1",
    "soccer123",
    "summer2024",
    "summer2025",
    "summer2026",
    "winter2025",
    "winter2026",
    "spring2026",
    "autumn2026",
    "company1",
    "company123",
    "letmein123",
    "default1",
    "secret123",
    "test1234",
    "testtest",
    "guest123",
    "engram123",
    "engram-demo",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_long_and_common_passwords_are_refused_with_a_reason() {
        let reason = |p: &str| NewPassword::parse(p).unwrap_err().to_string();
        assert_eq!(reason("seven77"), "A password needs at least 8 characters");
        assert_eq!(reason(&"x".repeat(MAX_LENGTH + 1)), "A password can be at most 256 characters");
        assert!(reason("Password1").contains("most common"));
        assert!(reason(" qwertyuiop ").contains("most common"));
        assert!(reason("engram-demo").contains("most common"));
    }

    #[test]
    fn a_good_password_is_kept_as_typed() {
        let p = NewPassword::parse("correct horse battery").unwrap();
        assert_eq!(p.as_str(), "correct horse battery");
        assert!(!format!("{p:?}").contains("horse"));
        // Eight characters count in characters, not bytes.
        assert!(NewPassword::parse("ééééééé").is_err());
        assert!(NewPassword::parse("éééééééé").is_ok());
    }

    #[test]
    fn the_list_is_lower_case_and_at_least_the_minimum_length() {
        for c in COMMON {
            assert_eq!(*c, c.to_lowercase());
            assert!(c.chars().count() >= MIN_LENGTH, "{c} could never be chosen anyway");
        }
    }
}
