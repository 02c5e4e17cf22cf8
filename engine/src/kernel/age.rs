//! How old something is, in the words every page and every quoted item uses: "just now",
//! "12 min ago", "5 h ago", "3 days ago".

use chrono::{DateTime, Utc};

pub fn age_words(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let mins = (now - at).num_minutes().max(0);
    match mins {
        0 => "just now".to_string(),
        1..=59 => format!("{mins} min ago"),
        60..=2879 => format!("{} h ago", mins / 60),
        _ => format!("{} days ago", mins / 1440),
    }
}
