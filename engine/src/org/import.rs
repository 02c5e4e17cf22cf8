//! Importing people from a CSV file: reading the file, checking each row against the organisation,
//! and the dry run that comes of it. Pure: the use case (`service::import`) reads the directory and
//! writes through [`ImportStore`].

use super::names::{parse_display_name, EmailAddress};
use super::{Directory, OrgError, PersonId, RoleId, TeamId};
use crate::error::{ErrorKind, UserSafe};
use crate::kernel::{Actor, StoreError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The most rows one import may hold; a larger organisation imports in several files.
pub const MAX_IMPORT_ROWS: usize = 20_000;
/// The largest file one import may be, in bytes (2 MB).
pub const MAX_IMPORT_BYTES: usize = 2 * 1024 * 1024;

pub const NOT_ADMIN: &str = "Only an admin can add people";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ImportError {
    #[error("{0}")]
    NotAllowed(String),
    /// The file as a whole cannot be read: no header, too large, a quote never closed.
    #[error("{0}")]
    BadFile(String),
    /// The people or teams changed since the dry run the apply was based on; nothing was added.
    #[error("{0}")]
    Changed(String),
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

impl UserSafe for ImportError {
    fn kind(&self) -> ErrorKind {
        match self {
            ImportError::NotAllowed(_) => ErrorKind::NotAllowed,
            ImportError::BadFile(_) => ErrorKind::Invalid,
            ImportError::Changed(_) => ErrorKind::Conflict,
            ImportError::Internal(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ImportError::NotAllowed(_) => "not_allowed",
            ImportError::BadFile(_) => "invalid_file",
            ImportError::Changed(_) => "changed_since_dry_run",
            ImportError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            ImportError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

impl From<StoreError> for ImportError {
    fn from(e: StoreError) -> Self {
        ImportError::Internal(e.to_string())
    }
}

/// One person the import would add, as checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowToAdd {
    /// The line of the file the row starts on; the header is line 1.
    pub line: u32,
    pub name: String,
    pub email: String,
    pub team: TeamId,
    pub team_name: String,
    /// Their own department role; without one they take their team's.
    pub role: Option<RoleId>,
    pub role_name: Option<String>,
}

/// A row the import refuses, and why, in words that follow "line N: ".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedRow {
    pub line: u32,
    pub reason: String,
}

impl RefusedRow {
    /// "line 4: there is no team called Sales West".
    pub fn sentence(&self) -> String {
        format!("line {}: {}", self.line, self.reason)
    }
}

/// The dry run: who would be added, and which rows are refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ImportPlan {
    pub to_add: Vec<RowToAdd>,
    pub refused: Vec<RefusedRow>,
}

impl ImportPlan {
    /// Names this dry run's outcome, so an apply can say which dry run it confirms: the count of
    /// people to add, then a hash of who and where. An apply whose file now checks differently
    /// is refused rather than adding other people than the admin saw.
    pub fn check(&self) -> String {
        // FNV-1a: stable across builds and platforms, which std's hasher is not promised to be.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            h ^= 0xff;
            h = h.wrapping_mul(0x0100_0000_01b3);
        };
        for r in &self.to_add {
            eat(&r.line.to_le_bytes());
            eat(r.name.as_bytes());
            eat(r.email.as_bytes());
            eat(&r.team.0.to_le_bytes());
            eat(&r.role.map_or(-1, |r| r.0).to_le_bytes());
        }
        for r in &self.refused {
            eat(&r.line.to_le_bytes());
        }
        format!("{}-{h:016x}", self.to_add.len())
    }
}

/// One person added by an import, with the path of their one-time invite link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedPerson {
    pub id: PersonId,
    pub line: u32,
    pub name: String,
    pub email: String,
    /// `/invite/<secret>`: the secret is shown this once and only its hash is kept.
    pub invite_path: String,
}

/// What an applied import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportDone {
    pub added: Vec<AddedPerson>,
    pub refused: Vec<RefusedRow>,
}

/// A person as the store writes them: their password is one nobody knows, and their invite's
/// secret is given only as its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedPerson {
    pub name: String,
    /// Lower-cased, as `EmailAddress` spells it.
    pub email: String,
    pub main_team: TeamId,
    pub role_override: Option<RoleId>,
    pub invite_hash: String,
}

/// Everything one import writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeopleImport {
    pub people: Vec<ImportedPerson>,
    /// A hash no password matches, for everyone imported until they use their invite.
    pub password_hash: String,
    pub invite_expires_at: DateTime<Utc>,
    /// The audit row's detail: how many were added and refused.
    pub audit_detail: String,
}

#[async_trait]
pub trait ImportStore: Send + Sync {
    /// Adds every person with their invite (made by the actor, at the actor's time), and one
    /// `people.import` audit row, in one transaction. Refuses with `Duplicate(email)` when an
    /// email is already taken, writing nothing. Returns the new ids in the order given.
    async fn import_people(&self, import: &PeopleImport, actor: Actor) -> Result<Vec<PersonId>, StoreError>;
}

/// The file's bytes as text: UTF-8, within the size cap, a leading BOM dropped.
pub fn decode_csv(bytes: &[u8]) -> Result<String, ImportError> {
    check_size(bytes.len())?;
    let text = std::str::from_utf8(bytes).map_err(|_| {
        ImportError::BadFile(
            "The file is not UTF-8 text: save it from your spreadsheet as \"CSV UTF-8\" and try again".to_string(),
        )
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text).to_string())
}

fn check_size(bytes: usize) -> Result<(), ImportError> {
    if bytes > MAX_IMPORT_BYTES {
        return Err(ImportError::BadFile(format!(
            "The file is {:.1} MB; an import can be at most {} MB. Split it into smaller files.",
            bytes as f64 / (1024.0 * 1024.0),
            MAX_IMPORT_BYTES / (1024 * 1024)
        )));
    }
    Ok(())
}

/// One record of a CSV file and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvRecord {
    pub line: u32,
    pub fields: Vec<String>,
}

/// Reads CSV as RFC 4180 writes it, and as spreadsheets save it: fields separated by commas,
/// records by LF or CRLF; a quoted field may hold commas, line breaks and doubled quotes. Blank
/// records (an empty line, or only commas) are skipped. A quote left open, or text after a
/// closing quote, refuses the whole file: where one record ends is then unknown.
pub fn read_csv(text: &str) -> Result<Vec<CsvRecord>, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let (mut line, mut record_line) = (1u32, 1u32);
    let (mut in_quotes, mut after_quote, mut quote_line) = (false, false, 1u32);
    let mut chars = text.chars().peekable();
    let mut end_record = |fields: &mut Vec<String>, record_line: u32| {
        let record = std::mem::take(fields);
        if record.iter().any(|f| !f.trim().is_empty()) {
            records.push(CsvRecord { line: record_line, fields: record });
        }
    };
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => {
                    in_quotes = false;
                    after_quote = true;
                }
                '\r' | '\n' => {
                    if c == '\r' && chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    line += 1;
                    field.push('\n');
                }
                c => field.push(c),
            }
            continue;
        }
        match c {
            ',' => {
                fields.push(std::mem::take(&mut field));
                after_quote = false;
            }
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                fields.push(std::mem::take(&mut field));
                end_record(&mut fields, record_line);
                line += 1;
                record_line = line;
                after_quote = false;
            }
            ' ' | '\t' if after_quote => {}
            _ if after_quote => {
                return Err(ImportError::BadFile(format!(
                    "line {line}: a quoted field must end at its closing quote, before the next comma; \
                     put the whole field in quotes and double any quote inside it"
                )))
            }
            '"' if field.trim().is_empty() => {
                field.clear();
                in_quotes = true;
                quote_line = line;
            }
            c => field.push(c),
        }
    }
    if in_quotes {
        return Err(ImportError::BadFile(format!(
            "line {quote_line}: a quoted field is never closed; check that each opening quote has its closing quote"
        )));
    }
    if !field.is_empty() || !fields.is_empty() || after_quote {
        fields.push(field);
        end_record(&mut fields, record_line);
    }
    Ok(records)
}

const COLUMNS: [&str; 4] = ["name", "email", "team", "role"];

/// Where each column is, from the header (any order, any case).
struct Header {
    name: usize,
    email: usize,
    team: usize,
    role: Option<usize>,
    width: usize,
}

fn header(record: &CsvRecord) -> Result<Header, ImportError> {
    let hint = "The first line must be the header naming the columns: name,email,team,role";
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, raw) in record.fields.iter().enumerate() {
        let column = raw.trim().to_lowercase();
        let Some(known) = COLUMNS.iter().find(|c| **c == column) else {
            return Err(ImportError::BadFile(format!(
                "{hint}; it has a column {:?}, which is not one of them",
                raw.trim()
            )));
        };
        if at.insert(known, i).is_some() {
            return Err(ImportError::BadFile(format!("{hint}; it names the column {known} twice")));
        }
    }
    let need =
        |c: &str| at.get(c).copied().ok_or_else(|| ImportError::BadFile(format!("{hint}; it has no {c} column")));
    Ok(Header {
        name: need("name")?,
        email: need("email")?,
        team: need("team")?,
        role: at.get("role").copied(),
        width: record.fields.len(),
    })
}

/// An engine sentence ("A person needs a name") as the words after "line N: ".
fn reason(e: OrgError) -> String {
    let s = e.to_string();
    let mut chars = s.chars();
    match (chars.next(), chars.clone().next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => s,
    }
}

/// The dry run: reads the file and checks every row against the organisation as it is now.
/// A row is refused for a missing or bad name or email, an email already taken or on more than
/// one row, a team that does not exist, or a role that does not. Nothing is written.
pub fn plan_import(text: &str, dir: &Directory) -> Result<ImportPlan, ImportError> {
    check_size(text.len())?;
    let records = read_csv(text)?;
    let Some((head, rows)) = records.split_first() else {
        return Err(ImportError::BadFile(
            "The file is empty: it needs the header line name,email,team,role and a line for each person".to_string(),
        ));
    };
    let header = header(head)?;
    if rows.len() > MAX_IMPORT_ROWS {
        return Err(ImportError::BadFile(format!(
            "The file has {} rows; an import can have at most {}. Split it into smaller files.",
            thousands(rows.len()),
            thousands(MAX_IMPORT_ROWS)
        )));
    }
    let teams: HashMap<String, &super::Team> = dir.teams.iter().map(|t| (t.name.to_lowercase(), t)).collect();
    let mut roles: HashMap<String, &super::Role> = HashMap::new();
    for r in &dir.roles {
        roles.insert(r.name.to_lowercase(), r);
        roles.insert(r.slug.as_str().to_string(), r);
        roles.insert(r.slug.to_string(), r);
    }
    let taken: HashSet<String> = dir.people.iter().map(|p| p.email.to_lowercase()).collect();
    // Every line each email is on, so that all rows sharing one are refused alike.
    let mut lines_of: HashMap<String, Vec<u32>> = HashMap::new();
    for r in rows {
        if let Some(e) = r.fields.get(header.email).and_then(|e| EmailAddress::parse(e).ok()) {
            lines_of.entry(e.as_str().to_string()).or_default().push(r.line);
        }
    }
    let mut plan = ImportPlan::default();
    for r in rows {
        match check_row(r, &header, &teams, &roles, &taken, &lines_of) {
            Ok(row) => plan.to_add.push(row),
            Err(reason) => plan.refused.push(RefusedRow { line: r.line, reason }),
        }
    }
    Ok(plan)
}

fn check_row(
    r: &CsvRecord,
    h: &Header,
    teams: &HashMap<String, &super::Team>,
    roles: &HashMap<String, &super::Role>,
    taken: &HashSet<String>,
    lines_of: &HashMap<String, Vec<u32>>,
) -> Result<RowToAdd, String> {
    if r.fields.len() != h.width {
        return Err(format!("it has {} fields where the header has {}", r.fields.len(), h.width));
    }
    let name = parse_display_name(&r.fields[h.name], "A person").map_err(reason)?;
    let email = EmailAddress::parse(&r.fields[h.email]).map_err(reason)?;
    if taken.contains(email.as_str()) {
        return Err(format!("someone already has the email {email}"));
    }
    if let Some(lines) = lines_of.get(email.as_str()).filter(|l| l.len() > 1) {
        let others: Vec<String> = lines.iter().filter(|l| **l != r.line).map(u32::to_string).collect();
        let on = if others.len() == 1 { "line" } else { "lines" };
        return Err(format!("the email {email} is also on {on} {}", others.join(", ")));
    }
    let team_name = r.fields[h.team].trim();
    if team_name.is_empty() {
        return Err("a team is needed: each person joins one of the company's teams".to_string());
    }
    let team = teams.get(&team_name.to_lowercase()).ok_or_else(|| format!("there is no team called {team_name}"))?;
    let role = match h.role.map(|i| r.fields[i].trim()).filter(|s| !s.is_empty()) {
        None => None,
        Some(role) => Some(*roles.get(&role.to_lowercase()).ok_or_else(|| format!("there is no role called {role}"))?),
    };
    Ok(RowToAdd {
        line: r.line,
        name,
        email: email.as_str().to_string(),
        team: team.id,
        team_name: team.name.clone(),
        role: role.map(|r| r.id),
        role_name: role.map(|r| r.name.clone()),
    })
}

/// 20000 as "20,000".
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "1 person", "3 people".
pub fn people_count(n: usize) -> String {
    if n == 1 {
        "1 person".to_string()
    } else {
        format!("{} people", thousands(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::org::{Person, Role, RoleSlug, Team};

    fn fields(text: &str) -> Vec<(u32, Vec<String>)> {
        read_csv(text).unwrap().into_iter().map(|r| (r.line, r.fields)).collect()
    }

    fn own(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn csv_reads_quotes_commas_doubled_quotes_and_line_breaks() {
        let text = "\u{feff}name,email\r\n\"Hopper, Grace\",\"g\"\"h\"\"@x.io\"\r\n\"two\nlines\",b\n\nc,d";
        assert_eq!(
            fields(text),
            vec![
                (1, own(&["name", "email"])),
                (2, own(&["Hopper, Grace", "g\"h\"@x.io"])),
                (3, own(&["two\nlines", "b"])),
                (6, own(&["c", "d"])),
            ]
        );
        assert_eq!(fields("a,b\n,,\n  \nx,\"\""), vec![(1, own(&["a", "b"])), (4, own(&["x", ""]))]);
        assert_eq!(fields("a,\"b\" \r\n"), vec![(1, own(&["a", "b"]))], "spaces after a closing quote");
        assert_eq!(fields("a\rb"), vec![(1, own(&["a"])), (2, own(&["b"]))]);
    }

    #[test]
    fn csv_refuses_an_open_quote_or_text_after_a_closing_one() {
        let open = read_csv("name,email\nx,\"never\nclosed").unwrap_err();
        assert!(open.to_string().starts_with("line 2: a quoted field is never closed"), "{open}");
        let after = read_csv("name\n\"a\"b").unwrap_err();
        assert!(after.to_string().starts_with("line 2: a quoted field must end"), "{after}");
    }

    fn dir() -> Directory {
        let sales = Role {
            id: RoleId(1),
            slug: RoleSlug::parse("sales").unwrap(),
            name: "Sales".into(),
            company_core_limit: 2_000,
        };
        Directory {
            people: vec![Person {
                id: PersonId(1),
                name: "Ada".into(),
                email: "ada@acme.example".into(),
                is_admin: true,
                main_team: None,
                role_override: None,
                manager: None,
                left_at: None,
            }],
            teams: vec![Team { id: TeamId(7), name: "Sales East".into(), lead: None, role: Some(RoleId(1)) }],
            roles: vec![sales],
            agents: vec![],
        }
    }

    #[test]
    fn rows_are_checked_each_with_its_line_and_reason() {
        let text = "Email,TEAM,name,role\n\
                    grace@acme.example,sales east,Grace Hopper,\n\
                    alan@acme.example,Sales West,Alan Turing,\n\
                    ADA@acme.example,Sales East,Ada Again,\n\
                    linus@acme.example,Sales East,Linus,role:sales\n\
                    dup@acme.example,Sales East,One,\n\
                    dup@acme.example,Sales East,Two,Sales\n\
                    nobody,Sales East,No Email,\n\
                    x@acme.example,Sales East,,\n\
                    y@acme.example,Sales East,Y,Marketing\n\
                    z@acme.example,Sales East\n\
                    w@acme.example,,W,";
        let plan = plan_import(text, &dir()).unwrap();
        let added: Vec<_> = plan.to_add.iter().map(|r| (r.line, r.email.as_str(), r.role)).collect();
        assert_eq!(added, [(2, "grace@acme.example", None), (5, "linus@acme.example", Some(RoleId(1)))]);
        assert_eq!(plan.to_add[0].name, "Grace Hopper");
        assert_eq!(plan.to_add[0].team_name, "Sales East");
        let refused: Vec<String> = plan.refused.iter().map(RefusedRow::sentence).collect();
        assert_eq!(
            refused,
            [
                "line 3: there is no team called Sales West",
                "line 4: someone already has the email ada@acme.example",
                "line 6: the email dup@acme.example is also on line 7",
                "line 7: the email dup@acme.example is also on line 6",
                "line 8: \"nobody\" is not an email address, such as ada@example.com",
                "line 9: a person needs a name",
                "line 10: there is no role called Marketing",
                "line 11: it has 2 fields where the header has 4",
                "line 12: a team is needed: each person joins one of the company's teams",
            ]
        );
    }

    #[test]
    fn the_header_is_required_and_checked() {
        let no_header = plan_import("grace@acme.example,Sales East,Grace\n", &dir()).unwrap_err();
        assert!(no_header.to_string().contains("it has a column \"grace@acme.example\""), "{no_header}");
        let missing = plan_import("name,email\nGrace,g@acme.example\n", &dir()).unwrap_err();
        assert!(missing.to_string().ends_with("it has no team column"), "{missing}");
        let twice = plan_import("name,email,team,Name\n", &dir()).unwrap_err();
        assert!(twice.to_string().ends_with("it names the column name twice"), "{twice}");
        assert!(plan_import("", &dir()).unwrap_err().to_string().starts_with("The file is empty"));
        let no_role_column = plan_import("team,name,email\nSales East,Grace,g@acme.example", &dir()).unwrap();
        assert_eq!(no_role_column.to_add.len(), 1);
    }

    #[test]
    fn size_and_row_caps_are_plain() {
        let mut text = String::from("name,email,team\n");
        for i in 0..=MAX_IMPORT_ROWS {
            text.push_str(&format!("P{i},p{i}@acme.example,Sales East\n"));
        }
        let e = plan_import(&text, &dir()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The file has 20,001 rows; an import can have at most 20,000. Split it into smaller files."
        );
        let big = vec![b'a'; MAX_IMPORT_BYTES + 1];
        assert!(decode_csv(&big)
            .unwrap_err()
            .to_string()
            .starts_with("The file is 2.0 MB; an import can be at most 2 MB"));
        assert!(decode_csv(&[0xff, 0xfe]).unwrap_err().to_string().starts_with("The file is not UTF-8 text"));
        assert_eq!(decode_csv("\u{feff}name".as_bytes()).unwrap(), "name");
    }

    #[test]
    fn the_check_names_the_outcome() {
        let a = plan_import("name,email,team\nG,g@acme.example,Sales East\n", &dir()).unwrap();
        let b = plan_import("name,email,team\nG,g@acme.example,Sales West\n", &dir()).unwrap();
        assert!(a.check().starts_with("1-") && b.check().starts_with("0-"));
        assert_ne!(a.check(), b.check());
        assert_eq!(a.check(), a.clone().check());
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(people_count(1), "1 person");
        assert_eq!(people_count(10_000), "10,000 people");
    }
}
