//! Connector keys sealed at rest.
//!
//! `connectors.company_key` and `person_keys.secret` are sealed with XChaCha20-Poly1305 under one
//! 32-byte secret key, so a copy of the database (or a backup) without that key hands over no
//! source's credentials. The stores seal on write and open on read: nothing above them ever sees a
//! sealed value.
//!
//! A stored value is `v1:` followed by base64(nonce || ciphertext), with a random 24-byte nonce per
//! value. The associated data names the row the value belongs to, so a sealed value copied into
//! another row (another connector, another person) does not open there.
//!
//! Where the key comes from, and the checks at start-up, are in `key_source` and `unlock`.

mod key_source;
mod unlock;

pub use key_source::{KeyOrigin, KeySetting, KEY_FILE_VAR, KEY_VAR};
pub use unlock::{rotate, unlock_store, Rotated, SecretError};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

/// Marks a sealed value and the format it is sealed in.
pub const SEALED_PREFIX: &str = "v1:";
const NONCE_LEN: usize = 24;
const KEY_LEN: usize = 32;

/// The secret key: 32 random bytes, written as base64 (44 characters, as `openssl rand -base64 32`
/// prints them). Never printed by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretKey([u8; KEY_LEN]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(…)")
    }
}

/// Why a text is not a secret key. The text itself is never repeated: it may be a real key with a
/// typo.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyParseError {
    #[error("is empty; it must be 32 bytes written in base64 (44 characters, as `openssl rand -base64 32` prints)")]
    Empty,
    #[error(
        "is not base64; it must be 32 bytes written in base64 (44 characters, as `openssl rand -base64 32` prints)"
    )]
    NotBase64,
    #[error("is {0} bytes long; it must be exactly 32 bytes written in base64 (44 characters, as `openssl rand -base64 32` prints)")]
    WrongLength(usize),
}

impl SecretKey {
    /// Parses a key written in standard base64 with its padding; spaces and line ends around it
    /// (as a file or a pasted line carries) are ignored.
    pub fn parse(text: &str) -> Result<Self, KeyParseError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(KeyParseError::Empty);
        }
        let bytes = BASE64.decode(text).map_err(|_| KeyParseError::NotBase64)?;
        let key: [u8; KEY_LEN] = bytes.as_slice().try_into().map_err(|_| KeyParseError::WrongLength(bytes.len()))?;
        Ok(Self(key))
    }

    /// A new random key from the operating system's generator.
    pub fn generate() -> Self {
        Self(XChaCha20Poly1305::generate_key(&mut OsRng).into())
    }

    /// The key as `parse` reads it.
    pub fn to_base64(&self) -> String {
        BASE64.encode(self.0)
    }

    /// Its 32 bytes, for a key that is not a cipher's (the erasure key, which keys a hash).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Where a sealed value lives. It is bound into the value, so that a value moved to another row
/// does not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// `connectors.company_key` of this connector.
    CompanyKey { connector: i64 },
    /// `person_keys.secret` of this connector and person.
    PersonKey { connector: i64, person: i64 },
    /// The known value that start-up opens to tell a right key from a wrong one.
    KeyCheck,
    /// A flash kept in a browser's cookie, for a browser without a session.
    FlashCookie,
    /// `erasure_key.sealed`: the key an erasure's audit hashes the erased value with.
    ErasureKey,
}

impl Place {
    fn associated_data(&self) -> String {
        match self {
            Place::CompanyKey { connector } => format!("engram:connector:{connector}:company_key"),
            Place::PersonKey { connector, person } => format!("engram:person_key:{person}:{connector}"),
            Place::KeyCheck => "engram:secret_key_check".to_string(),
            Place::FlashCookie => "engram:flash_cookie".to_string(),
            Place::ErasureKey => "engram:erasure_key".to_string(),
        }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::CompanyKey { connector } => write!(f, "the company key of connector {connector}"),
            Place::PersonKey { connector, person } => write!(f, "person {person}'s key for connector {connector}"),
            Place::KeyCheck => f.write_str("the secret key check"),
            Place::FlashCookie => f.write_str("a flash cookie"),
            Place::ErasureKey => f.write_str("the erasure key"),
        }
    }
}

/// What the key check holds once opened.
pub const KEY_CHECK_TEXT: &str = "engram secret key check";

/// Why a stored value did not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("is not sealed")]
    NotSealed,
    #[error("is not a sealed value this version of Engram can read")]
    Malformed,
    /// The key is not the one it was sealed with, the value was sealed for another place, or it
    /// was changed.
    #[error("does not open with this secret key")]
    WrongKey,
}

/// Seals and opens values under one secret key.
pub struct SecretBox {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(…)")
    }
}

impl SecretBox {
    pub fn new(key: &SecretKey) -> Self {
        Self { cipher: XChaCha20Poly1305::new(&key.0.into()) }
    }

    /// Whether a stored value is sealed (rather than a key from before sealing).
    pub fn is_sealed(stored: &str) -> bool {
        stored.starts_with(SEALED_PREFIX)
    }

    pub fn seal(&self, plain: &str, place: Place) -> String {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let aad = place.associated_data();
        // Encryption fails only for messages of gigabytes; a key is a line.
        let sealed = self
            .cipher
            .encrypt(&nonce, Payload { msg: plain.as_bytes(), aad: aad.as_bytes() })
            .expect("XChaCha20-Poly1305 seals any message shorter than 256 GiB");
        let mut bytes = Vec::with_capacity(NONCE_LEN + sealed.len());
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&sealed);
        format!("{SEALED_PREFIX}{}", BASE64.encode(bytes))
    }

    pub fn open(&self, stored: &str, place: Place) -> Result<String, OpenError> {
        let body = stored.strip_prefix(SEALED_PREFIX).ok_or(OpenError::NotSealed)?;
        let bytes = BASE64.decode(body).map_err(|_| OpenError::Malformed)?;
        if bytes.len() < NONCE_LEN {
            return Err(OpenError::Malformed);
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let aad = place.associated_data();
        let plain = self
            .cipher
            .decrypt(XNonce::from_slice(nonce), Payload { msg: sealed, aad: aad.as_bytes() })
            .map_err(|_| OpenError::WrongKey)?;
        String::from_utf8(plain).map_err(|_| OpenError::Malformed)
    }

    /// Whether this key opens a stored key check.
    pub fn opens_check(&self, stored: &str) -> bool {
        self.open(stored, Place::KeyCheck).is_ok_and(|t| t == KEY_CHECK_TEXT)
    }

    pub fn seal_check(&self) -> String {
        self.seal(KEY_CHECK_TEXT, Place::KeyCheck)
    }
}

/// A browser's flash cookie is sealed with the server's key, so only this server's pages write one.
impl app::flash_cookie::Seal for SecretBox {
    fn seal(&self, plain: &str) -> String {
        SecretBox::seal(self, plain, Place::FlashCookie)
    }

    fn open(&self, sealed: &str) -> Option<String> {
        SecretBox::open(self, sealed, Place::FlashCookie).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    #[test]
    fn a_key_is_32_bytes_of_base64_and_anything_else_is_named_without_repeating_it() {
        let key = SecretKey::parse(KEY).unwrap();
        assert_eq!(key.to_base64(), KEY);
        assert_eq!(SecretKey::parse(&format!("  {KEY}\n")).unwrap(), key, "a file's line end is fine");
        assert_eq!(SecretKey::parse("").unwrap_err(), KeyParseError::Empty);
        assert_eq!(SecretKey::parse(" \n").unwrap_err(), KeyParseError::Empty);
        assert_eq!(SecretKey::parse("not base64!").unwrap_err(), KeyParseError::NotBase64);
        // Hex is a common guess at a key's spelling; it is refused, not read as base64 of 48 bytes.
        let hex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
        assert_eq!(SecretKey::parse(hex).unwrap_err(), KeyParseError::WrongLength(48));
        assert_eq!(SecretKey::parse("c2hvcnQ=").unwrap_err(), KeyParseError::WrongLength(5));
        // Without its padding, base64 is refused rather than guessed at.
        assert_eq!(SecretKey::parse(KEY.trim_end_matches('=')).unwrap_err(), KeyParseError::NotBase64);
        let said = SecretKey::parse("c2hvcnQ=").unwrap_err().to_string();
        assert_eq!(
            said,
            "is 5 bytes long; it must be exactly 32 bytes written in base64 (44 characters, as `openssl rand \
             -base64 32` prints)"
        );
        assert!(!said.contains("c2hvcnQ"));
        assert_eq!(format!("{key:?}"), "SecretKey(…)");
    }

    #[test]
    fn generated_keys_differ_and_read_back() {
        let (a, b) = (SecretKey::generate(), SecretKey::generate());
        assert_ne!(a, b);
        assert_eq!(SecretKey::parse(&a.to_base64()).unwrap(), a);
        assert_eq!(a.to_base64().len(), 44);
    }

    #[test]
    fn a_sealed_value_opens_only_with_its_key_and_in_its_place() {
        let sealer = SecretBox::new(&SecretKey::parse(KEY).unwrap());
        let here = Place::CompanyKey { connector: 1 };
        let sealed = sealer.seal("acme-company-key", here);
        assert!(sealed.starts_with("v1:") && SecretBox::is_sealed(&sealed));
        assert!(!sealed.contains("acme-company-key"));
        assert_eq!(sealer.open(&sealed, here).unwrap(), "acme-company-key");
        assert_ne!(sealer.seal("acme-company-key", here), sealed, "a fresh nonce every time");

        assert_eq!(sealer.open(&sealed, Place::CompanyKey { connector: 2 }), Err(OpenError::WrongKey));
        assert_eq!(sealer.open(&sealed, Place::PersonKey { connector: 1, person: 1 }), Err(OpenError::WrongKey));
        let person = sealer.seal("alice-key", Place::PersonKey { connector: 1, person: 2 });
        assert_eq!(sealer.open(&person, Place::PersonKey { connector: 1, person: 3 }), Err(OpenError::WrongKey));
        assert_eq!(sealer.open(&person, Place::PersonKey { connector: 2, person: 2 }), Err(OpenError::WrongKey));

        let other = SecretBox::new(&SecretKey::generate());
        assert_eq!(other.open(&sealed, here), Err(OpenError::WrongKey));
        assert_eq!(sealer.open("acme-company-key", here), Err(OpenError::NotSealed));
        assert_eq!(sealer.open("v1:@@@", here), Err(OpenError::Malformed));
        assert_eq!(sealer.open("v1:AAAA", here), Err(OpenError::Malformed));

        let mut tampered = sealed.clone().into_bytes();
        let last = tampered.len() - 3;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(sealer.open(&String::from_utf8(tampered).unwrap(), here), Err(OpenError::WrongKey));
    }

    #[test]
    fn the_key_check_tells_the_right_key_from_a_wrong_one() {
        let right = SecretBox::new(&SecretKey::generate());
        let check = right.seal_check();
        assert!(right.opens_check(&check));
        assert!(!SecretBox::new(&SecretKey::generate()).opens_check(&check));
        assert!(!right.opens_check(&right.seal(KEY_CHECK_TEXT, Place::CompanyKey { connector: 1 })));
    }
}
