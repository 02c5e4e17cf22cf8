//! Checked-only answers: an admin sets a role or a team so that its people see an answer only
//! once it is checked.

pub mod checked_only_toggle;
pub mod load_checked_only;
pub mod set_checked_only;

/// The flash key of the toggle's own notice, so it reports on whichever page shows it.
pub fn checked_only_notice_key(scope: &str) -> String {
    format!("notice:checked-only:{scope}")
}
