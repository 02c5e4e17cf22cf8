//! The vault on disk. Every path is relative to the vault's root; anything that escapes it is
//! refused before the file system is touched.

use async_trait::async_trait;
use engine::persona::vault::{Link, Vault, VaultError};
use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone)]
pub struct FsVault {
    root: PathBuf,
}

fn io(path: &str, e: std::io::Error) -> VaultError {
    VaultError::Unreadable { path: path.to_string(), problem: e.to_string() }
}

impl FsVault {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn resolve(&self, path: &str) -> Result<PathBuf, VaultError> {
        let p = Path::new(path);
        let inside = !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(VaultError::Outside { path: path.to_string() });
        }
        Ok(self.root.join(p))
    }

    async fn blocking<T: Send + 'static>(
        f: impl FnOnce() -> Result<T, VaultError> + Send + 'static,
    ) -> Result<T, VaultError> {
        tokio::task::spawn_blocking(f)
            .await
            .unwrap_or_else(|e| Err(VaultError::Unreadable { path: String::new(), problem: e.to_string() }))
    }

    /// Refuses a path that passes through a symbolic link, so a link cannot lead out of the vault.
    fn through_link(&self, path: &str) -> Result<bool, VaultError> {
        let mut at = self.root.clone();
        for c in Path::new(path).components() {
            at.push(c);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => return Ok(true),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
                Err(e) => return Err(io(path, e)),
            }
        }
        Ok(false)
    }

    /// Whether the path may open another file than it spells: a symbolic link on the way, or a
    /// file with more than one name, whose other name may lie outside the vault or in a
    /// protected area.
    fn link_of(&self, path: &str) -> Result<Option<Link>, VaultError> {
        if self.through_link(path)? {
            return Ok(Some(Link::Symbolic));
        }
        match std::fs::metadata(self.root.join(path)) {
            Ok(m) if m.is_file() && hard_linked(&m) => Ok(Some(Link::Hard)),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(path, e)),
        }
    }
}

#[cfg(unix)]
fn hard_linked(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    m.nlink() > 1
}

/// The standard library reads a file's link count only on Unix, where Engram is served.
#[cfg(not(unix))]
fn hard_linked(_: &std::fs::Metadata) -> bool {
    false
}

fn read_text(full: &Path, path: &str) -> Result<Option<String>, VaultError> {
    match std::fs::read(full) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| VaultError::Invalid { path: path.to_string(), problem: "it is not UTF-8 text".into() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path, e)),
    }
}

fn write_atomic(full: &Path, path: &str, text: &str) -> Result<(), VaultError> {
    let unwritable = |e: std::io::Error| VaultError::Unwritable { path: path.to_string(), problem: e.to_string() };
    if let Some(dir) = full.parent() {
        std::fs::create_dir_all(dir).map_err(unwritable)?;
    }
    let tmp = full.with_extension(format!("engram-{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).map_err(unwritable)?;
    std::fs::rename(&tmp, full).map_err(unwritable)
}

#[async_trait]
impl Vault for FsVault {
    async fn read(&self, path: &str) -> Result<Option<String>, VaultError> {
        let full = self.resolve(path)?;
        let me = self.clone();
        let path = path.to_string();
        Self::blocking(move || {
            if me.through_link(&path)? {
                return Err(VaultError::Outside { path });
            }
            read_text(&full, &path)
        })
        .await
    }

    async fn read_tail(&self, path: &str, max_bytes: usize) -> Result<Option<String>, VaultError> {
        let Some(text) = self.read(path).await? else { return Ok(None) };
        let mut start = text.len().saturating_sub(max_bytes);
        while !text.is_char_boundary(start) {
            start += 1;
        }
        Ok(Some(text[start..].to_string()))
    }

    async fn link(&self, path: &str) -> Result<Option<Link>, VaultError> {
        self.resolve(path)?;
        let me = self.clone();
        let path = path.to_string();
        Self::blocking(move || me.link_of(&path)).await
    }

    async fn markdown_under(&self, dir: &str) -> Result<Vec<String>, VaultError> {
        let full = self.resolve(dir.trim_end_matches('/'))?;
        let me = self.clone();
        let dir = dir.trim_end_matches('/').to_string();
        Self::blocking(move || {
            if me.through_link(&dir)? {
                return Ok(Vec::new());
            }
            let mut out = Vec::new();
            let mut stack = vec![(full, dir.clone())];
            while let Some((at, rel)) = stack.pop() {
                let entries = match std::fs::read_dir(&at) {
                    Ok(e) => e,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(io(&rel, e)),
                };
                for entry in entries.flatten() {
                    let name = entry.file_name().to_string_lossy().to_string();
                    let Ok(kind) = entry.file_type() else { continue };
                    let child = format!("{rel}/{name}");
                    if kind.is_dir() {
                        stack.push((entry.path(), child));
                    } else if kind.is_file() && name.ends_with(".md") {
                        out.push(child);
                    }
                }
            }
            out.sort();
            Ok(out)
        })
        .await
    }

    async fn write(&self, path: &str, text: &str) -> Result<(), VaultError> {
        let full = self.resolve(path)?;
        let me = self.clone();
        let (path, text) = (path.to_string(), text.to_string());
        Self::blocking(move || {
            if me.through_link(&path)? {
                return Err(VaultError::Outside { path });
            }
            write_atomic(&full, &path, &text)
        })
        .await
    }

    async fn replace_if_unchanged(&self, path: &str, expected: &str, text: &str) -> Result<bool, VaultError> {
        let full = self.resolve(path)?;
        let me = self.clone();
        let (path, expected, text) = (path.to_string(), expected.to_string(), text.to_string());
        Self::blocking(move || {
            if me.through_link(&path)? {
                return Err(VaultError::Outside { path });
            }
            // A missing file holds nothing, so the memory audit can create USER.md.
            if read_text(&full, &path)?.unwrap_or_default() != expected {
                return Ok(false);
            }
            write_atomic(&full, &path, &text)?;
            Ok(true)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn paths_stay_inside_the_vault() {
        let dir = tempfile::tempdir().unwrap();
        let v = FsVault::new(dir.path());
        for bad in ["../x", "/etc/passwd", "a/../../b", ""] {
            assert!(matches!(v.read(bad).await, Err(VaultError::Outside { .. })), "{bad}");
        }
        v.write("a/b.md", "one\n").await.unwrap();
        assert_eq!(v.read("a/b.md").await.unwrap().as_deref(), Some("one\n"));
        assert_eq!(v.markdown_under("a").await.unwrap(), vec!["a/b.md"]);
        assert!(!v.replace_if_unchanged("a/b.md", "other\n", "two\n").await.unwrap());
        assert!(v.replace_if_unchanged("a/b.md", "one\n", "two\n").await.unwrap());
        assert!(!v.replace_if_unchanged("a/new.md", "was\n", "x\n").await.unwrap());
        assert!(v.replace_if_unchanged("a/new.md", "", "created\n").await.unwrap());
        assert_eq!(v.read("a/new.md").await.unwrap().as_deref(), Some("created\n"));
        assert_eq!(v.read_tail("a/b.md", 2).await.unwrap().as_deref(), Some("o\n"));
        std::os::unix::fs::symlink("/etc", dir.path().join("link")).unwrap();
        assert_eq!(v.link("link/passwd").await.unwrap(), Some(Link::Symbolic));
        assert!(matches!(v.read("link/passwd").await, Err(VaultError::Outside { .. })));
        assert_eq!(v.link("a/b.md").await.unwrap(), None, "a file with one name");
        assert_eq!(v.link("a/missing.md").await.unwrap(), None);
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "s\n").unwrap();
        std::fs::hard_link(outside.path().join("secret.md"), dir.path().join("a/twin.md")).unwrap();
        assert_eq!(v.link("a/twin.md").await.unwrap(), Some(Link::Hard), "a second name for a file elsewhere");
    }
}
