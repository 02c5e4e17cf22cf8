use super::*;
use chrono::TimeZone;

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 15, 0).unwrap() + chrono::Duration::nanoseconds(123_456_789)
}

fn sample() -> Vec<TableRows> {
    let mut tables: Vec<TableRows> = TABLES.iter().map(|table| TableRows { table, rows: Vec::new() }).collect();
    tables[0].rows.push(vec![
        Cell::Int(1),
        Cell::Text("Acme".into()),
        Cell::Text("Asia/Kolkata".into()),
        Cell::Time(at()),
        Cell::Text("en-IN".into()),
    ]);
    let people = tables.iter_mut().find(|t| t.table.name == "people").unwrap();
    people.rows.push(vec![
        Cell::Int(1),
        Cell::Text("Ada \"A\" Lovelace\nsecond line".into()),
        Cell::Text("ada@acme.example".into()),
        Cell::Bool(true),
        Cell::Null,
        Cell::Null,
        Cell::Time(at()),
        Cell::Null,
        Cell::Null,
        Cell::Null,
        Cell::Int(0),
    ]);
    tables
}

fn header_and_rows(text: &str) -> (String, Vec<String>) {
    let mut lines = text.lines().map(String::from);
    (lines.next().unwrap(), lines.collect())
}

#[test]
fn times_are_utc_with_exactly_six_fractional_digits() {
    assert_eq!(time_text(at()), "2026-11-30T09:15:00.123456Z");
    assert_eq!(time_text(Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()), "2026-01-02T03:04:05.000000Z");
}

#[test]
fn an_archive_reads_back_as_written_and_writes_the_same_lines_again() {
    let text = write(&sample(), "sqlite", at());
    let (header, rows) = header_and_rows(&text);
    assert!(header.starts_with(r#"{"format":"engram-archive","version":1,"exported_at":"2026-11-30T09:15:00.123456Z","source":"sqlite","rows":{"#));
    assert_eq!(
        rows[0],
        r#"{"table":"company","row":{"created_at":"2026-11-30T09:15:00.123456Z","id":1,"locale":"en-IN","name":"Acme","time_zone":"Asia/Kolkata"}}"#
    );
    assert!(rows[1].starts_with(r#"{"table":"people","row":{"created_at""#), "{}", rows[1]);
    assert!(rows[1].contains(r#""is_admin":true"#) && rows[1].contains(r#""left_at":null"#));
    let (read_header, tables) = read(&text).unwrap();
    assert_eq!(read_header.source, "sqlite");
    assert_eq!(read_header.rows["people"], 1);
    let again = write(&tables, "postgres", at() + chrono::Duration::hours(1));
    assert_eq!(header_and_rows(&again).1, rows, "the rows are equal; only the header tells the two apart");
    assert_eq!(summary(&tables), "company 1, people 1");

    // An archive written before the locale was kept reads as the default; one that is not
    // text is refused as any bad cell is.
    let older = text.replace(r#""locale":"en-IN","#, "");
    let (_, tables) = read(&older).unwrap();
    assert_eq!(tables[0].rows[0][4], Cell::Text("en-US".into()));
    let bad = text.replace(r#""locale":"en-IN""#, r#""locale":7"#);
    assert_eq!(read(&bad).unwrap_err().to_string(), "line 2 of the archive: company.locale must be a string, not 7");
}

#[test]
fn something_else_or_another_version_is_refused_with_a_sentence() {
    assert_eq!(read("").unwrap_err(), ArchiveError::NotAnArchive);
    assert_eq!(read("name,email\n").unwrap_err(), ArchiveError::NotAnArchive);
    assert_eq!(read(r#"{"format":"zip"}"#).unwrap_err(), ArchiveError::NotAnArchive);
    let e =
        read(r#"{"format":"engram-archive","version":2,"exported_at":"x","source":"sqlite","rows":{}}"#).unwrap_err();
    assert_eq!(e.to_string(), "this archive is version 2; this Engram reads version 1 only");
}

fn with_people_line(line: &str) -> Result<(Header, Vec<TableRows>), ArchiveError> {
    let text = write(&sample(), "sqlite", at());
    let (header, rows) = header_and_rows(&text);
    read(&format!("{header}\n{}\n{line}\n", rows[0]))
}

fn reason(e: ArchiveError) -> String {
    match e {
        ArchiveError::Line { line, reason } => format!("{line}: {reason}"),
        other => panic!("not a line error: {other:?}"),
    }
}

#[test]
fn a_row_must_have_every_column_of_its_kind_and_nothing_hidden() {
    let good = write(&sample(), "sqlite", at()).lines().nth(2).unwrap().to_string();
    assert!(with_people_line(&good).is_ok());
    let hidden = good.replace(r#""email":"#, r#""password_hash":"$argon2id$…","email":"#);
    assert_eq!(
        reason(with_people_line(&hidden).unwrap_err()),
        "3: people.password_hash is never carried in an archive"
    );
    let extra = good.replace(r#""email":"#, r#""nickname":"A","email":"#);
    assert_eq!(reason(with_people_line(&extra).unwrap_err()), "3: people has no column \"nickname\"");
    let missing = good.replace(r#""is_admin":true,"#, "");
    assert_eq!(reason(with_people_line(&missing).unwrap_err()), "3: people.is_admin is missing");
    let wrong = good.replace(r#""is_admin":true"#, r#""is_admin":1"#);
    assert_eq!(reason(with_people_line(&wrong).unwrap_err()), "3: people.is_admin must be true or false, not 1");
    let empty = good.replace(r#""email":"ada@acme.example""#, r#""email":null"#);
    assert_eq!(reason(with_people_line(&empty).unwrap_err()), "3: people.email may not be empty");
    let bad_time = good.replace("2026-11-30T09:15:00.123456Z", "yesterday");
    assert_eq!(
        reason(with_people_line(&bad_time).unwrap_err()),
        "3: people.created_at must be an RFC 3339 time, not \"yesterday\""
    );
    let unknown = r#"{"table":"api_tokens","row":{}}"#;
    assert_eq!(reason(with_people_line(unknown).unwrap_err()), "3: \"api_tokens\" is not a table an archive carries");
    let text = write(&sample(), "sqlite", at());
    let twice = format!("{text}{}\n", text.lines().nth(2).unwrap());
    assert_eq!(reason(read(&twice).unwrap_err()), "4: a second people row with the same id");
}

#[test]
fn a_cut_off_archive_is_refused_rather_than_loaded_in_part() {
    let text = write(&sample(), "sqlite", at());
    let cut: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        read(&cut).unwrap_err().to_string(),
        "the archive's header promises 1 people rows but it holds 0; the file is incomplete"
    );
}
