//! Where the secret key comes from: `ENGRAM_SECRET_KEY`, else the file `ENGRAM_SECRET_KEY_FILE`
//! names, else a file beside the SQLite database (`data/engram.key` beside `data/engram.db`),
//! which the first start creates with mode 0600.

use super::{KeyParseError, SecretKey};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub const KEY_VAR: &str = "ENGRAM_SECRET_KEY";
pub const KEY_FILE_VAR: &str = "ENGRAM_SECRET_KEY_FILE";

/// What the settings say about the key. The key itself is parsed at start-up, so that a bad one
/// stops the start with a sentence.
#[derive(Clone, PartialEq, Eq)]
pub enum KeySetting {
    /// `ENGRAM_SECRET_KEY`, as given.
    Given(String),
    /// `ENGRAM_SECRET_KEY_FILE`.
    File(PathBuf),
    /// Neither: a file beside the SQLite database.
    BesideDatabase,
    /// Both variables, which cannot both be meant.
    Both,
}

impl std::fmt::Debug for KeySetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySetting::Given(_) => f.write_str("Given(…)"),
            KeySetting::File(p) => f.debug_tuple("File").field(p).finish(),
            KeySetting::BesideDatabase => f.write_str("BesideDatabase"),
            KeySetting::Both => f.write_str("Both"),
        }
    }
}

impl KeySetting {
    pub fn from_env() -> Self {
        let env = |k: &str| std::env::var(k).ok();
        Self::from_values(env(KEY_VAR), env(KEY_FILE_VAR))
    }

    /// The setting for the two variables' values; an empty one counts as unset.
    pub fn from_values(key: Option<String>, file: Option<String>) -> Self {
        match (key.filter(|v| !v.is_empty()), file.filter(|v| !v.is_empty())) {
            (Some(_), Some(_)) => KeySetting::Both,
            (Some(key), None) => KeySetting::Given(key),
            (None, Some(file)) => KeySetting::File(PathBuf::from(file)),
            (None, None) => KeySetting::BesideDatabase,
        }
    }
}

/// Where the key in use came from, for the sentences that name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOrigin {
    Variable,
    File(PathBuf),
}

impl std::fmt::Display for KeyOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyOrigin::Variable => f.write_str(KEY_VAR),
            KeyOrigin::File(p) => write!(f, "the key file {}", p.display()),
        }
    }
}

/// Where the settings put the key file, if they name none: beside a SQLite database file, with the
/// extension `.key`. `None` when the database is not a file (PostgreSQL, or SQLite in memory).
pub fn file_beside(database_url: &str) -> Option<PathBuf> {
    sqlite_file(database_url).map(|path| Path::new(path).with_extension("key"))
}

/// The file a SQLite URL names, if it names one.
pub fn sqlite_file(database_url: &str) -> Option<&str> {
    let path = database_url.strip_prefix("sqlite://").or_else(|| database_url.strip_prefix("sqlite:"))?;
    let path = path.split('?').next().unwrap_or("");
    (!path.is_empty() && !path.contains(":memory:")).then_some(path)
}

/// Reads a key file; `Ok(None)` when there is none.
pub fn read_key_file(path: &Path) -> Result<Option<SecretKey>, KeyFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(KeyFileError::Io(path.to_path_buf(), e.to_string())),
    };
    let key = SecretKey::parse(&text).map_err(|e| KeyFileError::Bad(path.to_path_buf(), e))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            tracing::warn!(file = %path.display(), mode = format!("{mode:o}"),
                "the secret key file can be read by others; chmod 600 it");
        }
    }
    Ok(Some(key))
}

#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("could not read or write the key file {0}: {1}")]
    Io(PathBuf, String),
    #[error("the key file {0} does not hold a secret key: it {1}")]
    Bad(PathBuf, KeyParseError),
}

/// Writes a new key file, readable by its owner alone, holding `key`. The file appears whole or not
/// at all: the key goes to a file of its own first, which is then linked under the name, and a link
/// never replaces a file already there. Returns `false`, writing nothing, when the file exists.
pub fn create_key_file(path: &Path, key: &SecretKey) -> Result<bool, KeyFileError> {
    let io = |e: std::io::Error| KeyFileError::Io(path.to_path_buf(), e.to_string());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let draft = draft_path(path);
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&draft).map_err(io)?;
    let written = file.write_all(format!("{}\n", key.to_base64()).as_bytes()).and_then(|()| file.sync_all());
    drop(file);
    let linked = written.and_then(|()| std::fs::hard_link(&draft, path));
    let _ = std::fs::remove_file(&draft);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io(e)),
    }
}

/// A name beside `path` that no other writer uses.
fn draft_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".draft-{:016x}", rand::random::<u64>()));
    path.with_file_name(name)
}

/// Where `engram keys rotate` puts the new key until the rotation commits.
pub fn pending_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".new");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_file_sits_beside_a_sqlite_file_and_nowhere_else() {
        assert_eq!(file_beside("sqlite://data/engram.db"), Some(PathBuf::from("data/engram.key")));
        assert_eq!(file_beside("sqlite:///srv/e/main.db?mode=rwc"), Some(PathBuf::from("/srv/e/main.key")));
        assert_eq!(file_beside("sqlite:engram.db"), Some(PathBuf::from("engram.key")));
        assert_eq!(file_beside("sqlite::memory:"), None);
        assert_eq!(file_beside("postgres://u@h/engram"), None);
    }

    #[test]
    fn a_new_key_file_is_the_owners_alone_and_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("engram.key");
        let first = SecretKey::generate();
        assert!(create_key_file(&path, &first).unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(read_key_file(&path).unwrap(), Some(first.clone()));
        assert!(!create_key_file(&path, &SecretKey::generate()).unwrap(), "a second start finds it there");
        assert_eq!(read_key_file(&path).unwrap(), Some(first), "and keeps the first key");
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1, "no draft is left behind");
    }

    #[test]
    fn a_missing_file_is_none_and_a_bad_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("engram.key");
        assert_eq!(read_key_file(&path).unwrap(), None);
        std::fs::write(&path, "hunter2\n").unwrap();
        let said = read_key_file(&path).unwrap_err().to_string();
        assert!(said.starts_with(&format!("the key file {} does not hold a secret key: it is ", path.display())));
        assert!(!said.contains("hunter2"));
    }

    #[test]
    fn the_variables_pick_the_setting_and_the_key_is_never_shown() {
        let some = |s: &str| Some(s.to_string());
        assert_eq!(KeySetting::from_values(None, None), KeySetting::BesideDatabase);
        assert_eq!(KeySetting::from_values(some(""), some("")), KeySetting::BesideDatabase);
        assert_eq!(KeySetting::from_values(some("k"), None), KeySetting::Given("k".into()));
        assert_eq!(KeySetting::from_values(None, some("/etc/e.key")), KeySetting::File("/etc/e.key".into()));
        assert_eq!(KeySetting::from_values(some("k"), some("/etc/e.key")), KeySetting::Both);
        assert_eq!(format!("{:?}", KeySetting::Given("secret".into())), "Given(…)");
        assert_eq!(pending_path(Path::new("data/engram.key")), PathBuf::from("data/engram.key.new"));
    }
}
