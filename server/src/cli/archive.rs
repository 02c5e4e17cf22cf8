//! `engram export` and `engram import`: moving a whole organisation between databases, such as from
//! SQLite to PostgreSQL. The archive's format and what it carries are the engine's
//! (`engine::archive`); this opens the databases and the files.

use crate::store::{AnyStore, Backend, PgStore, SqliteStore};
use chrono::Utc;
use engine::archive::{self, ArchiveError, ArchiveStore};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    #[error("There is no database at {0}; there is nothing to export.")]
    NoDatabase(String),
    #[error("could not open {at}: {detail}")]
    Open { at: String, detail: String },
    #[error("could not read {file}: {detail}")]
    ReadFile { file: String, detail: String },
    #[error("could not write {file}: {detail}")]
    WriteFile { file: String, detail: String },
    #[error("{file} cannot be imported: {error}")]
    Invalid { file: String, error: ArchiveError },
    #[error("the database at {0} is not empty; import loads only into an empty database")]
    NotEmpty(String),
    #[error("could not {doing} {at}: {detail}")]
    Store { doing: &'static str, at: String, detail: String },
}

/// Where a database URL points, for messages: a SQLite file's path, or a PostgreSQL database's
/// name and host (never the user or password the URL may hold).
pub fn location(url: &str) -> String {
    match Backend::of(url) {
        Ok(Backend::Sqlite) => {
            url.strip_prefix("sqlite://").unwrap_or(url).split('?').next().unwrap_or_default().to_string()
        }
        Ok(Backend::Postgres) => match reqwest::Url::parse(url) {
            Ok(u) => format!(
                "the PostgreSQL database {} on {}",
                u.path().trim_start_matches('/'),
                u.host_str().unwrap_or("localhost")
            ),
            Err(_) => "the PostgreSQL database".to_string(),
        },
        Err(_) => "an unknown database".to_string(),
    }
}

/// Writes the organisation in the database at `url` to the file `to`, reading only: no migration,
/// no write. Returns the rows written per table.
pub async fn export(url: &str, to: &Path) -> Result<String, MoveError> {
    let at = location(url);
    let open = |e: engine::store::StoreError| MoveError::Open { at: at.clone(), detail: e.to_string() };
    let store: Box<dyn ArchiveStore> =
        match Backend::of(url).map_err(|e| MoveError::Open { at: at.clone(), detail: e.to_string() })? {
            Backend::Sqlite => {
                if !Path::new(&at).exists() {
                    return Err(MoveError::NoDatabase(at));
                }
                Box::new(SqliteStore::open_read_only(url).await.map_err(open)?)
            }
            Backend::Postgres => Box::new(PgStore::open_read_only(url).await.map_err(open)?),
        };
    let tables = store.export_tables().await.map_err(|e| {
        tracing::error!(error = %e, "export failed");
        MoveError::Store { doing: "read", at: at.clone(), detail: e.to_string() }
    })?;
    let text = archive::write(&tables, store.source(), Utc::now());
    std::fs::write(to, text)
        .map_err(|e| MoveError::WriteFile { file: to.display().to_string(), detail: e.to_string() })?;
    Ok(format!("exported to {}: {}", to.display(), archive::summary(&tables)))
}

/// Loads the archive `from` into the empty database at `url` (creating a SQLite file if needed),
/// in one transaction. Nobody's old password works afterwards. Returns the rows loaded per table.
pub async fn import(url: &str, from: &Path) -> Result<String, MoveError> {
    let file = from.display().to_string();
    let text =
        std::fs::read_to_string(from).map_err(|e| MoveError::ReadFile { file: file.clone(), detail: e.to_string() })?;
    // The whole archive is checked before the database is touched.
    let (_, tables) = archive::read(&text).map_err(|error| MoveError::Invalid { file: file.clone(), error })?;
    let at = location(url);
    let store = AnyStore::open(url).await.map_err(|e| MoveError::Open { at: at.clone(), detail: e.to_string() })?;
    let store: &dyn ArchiveStore = match &store {
        AnyStore::Sqlite(s) => s,
        AnyStore::Postgres(s) => s,
    };
    let unusable = unusable_password_hash().await.map_err(|detail| MoveError::Store {
        doing: "prepare the import into",
        at: at.clone(),
        detail,
    })?;
    match store.import_tables(&tables, &unusable).await {
        Ok(()) => Ok(format!("imported {file}: {}", archive::summary(&tables))),
        Err(ArchiveError::NotEmpty { .. }) => Err(MoveError::NotEmpty(at)),
        Err(e) => {
            tracing::error!(error = %e, "import failed");
            Err(MoveError::Store { doing: "load the archive into", at, detail: e.to_string() })
        }
    }
}

/// A real password hash of a random secret that is thrown away: sign-in reads it as any other hash,
/// and no password matches it.
async fn unusable_password_hash() -> Result<String, String> {
    let secret: [u8; 32] = rand::random();
    let secret: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    engine::auth::hash_password(secret).await.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::location;

    #[test]
    fn a_location_never_shows_the_password_in_a_url() {
        assert_eq!(location("sqlite://data/engram.db"), "data/engram.db");
        assert_eq!(location("sqlite:///tmp/x.db?mode=rwc"), "/tmp/x.db");
        let pg = location("postgres://engram:s3cret@db.example:5432/engram");
        assert_eq!(pg, "the PostgreSQL database engram on db.example");
        assert!(!pg.contains("s3cret"));
    }
}
