//! How a card's values read to people: each field under a label, drafted from its name and
//! confirmed by an admin with the shape, and numbers, amounts and dates written the way the
//! company writes them (`value_inr` 1850000 reads "₹18,50,000" in en-IN, "₹1,850,000" in en-US).
//!
//! Only what people read changes. The stored value stays as the source gave it, and the block a
//! model reads keeps the source's own names and values: those are what the check after an answer
//! compares, and a model reads `1850000` more surely than a grouped figure.
//!
//! Digit grouping comes from CLDR through `num-format` (which knows the Indian lakh grouping);
//! the few date patterns and currency signs are ours, as `num-format` has none.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// A locale the company writes numbers and dates in: a name such as `en-IN`, `de-DE` or `ja`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locale {
    /// The name as written canonically: language in lower case, region in upper case.
    name: String,
    /// CLDR's number data: the region's own where CLDR has it (`en-IN`), else the language's
    /// (`de-DE` groups as `de`).
    numbers: num_format::Locale,
}

impl Locale {
    /// The locale of a name (`en-IN`, `en_IN` and `EN-in` alike); `None` for a language CLDR has
    /// no number data for.
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim().replace('_', "-");
        let mut parts = name.split('-');
        let language = parts.next()?.to_ascii_lowercase();
        if language.is_empty() || !language.bytes().all(|b| b.is_ascii_alphabetic()) {
            return None;
        }
        let rest: Vec<String> =
            parts.map(|p| if p.len() == 2 { p.to_ascii_uppercase() } else { p.to_string() }).collect();
        if rest.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_alphanumeric())) {
            return None;
        }
        let canonical = std::iter::once(language.clone()).chain(rest).collect::<Vec<_>>().join("-");
        let numbers =
            num_format::Locale::from_name(&canonical).or_else(|_| num_format::Locale::from_name(&language)).ok()?;
        Some(Self { name: canonical, numbers })
    }

    /// The default for a company that has not said: United States English.
    pub fn default_name() -> &'static str {
        "en-US"
    }

    /// The default's locale.
    pub fn fallback() -> Self {
        Self { name: Self::default_name().to_string(), numbers: num_format::Locale::en }
    }

    /// The name, as stored.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn language(&self) -> &str {
        self.name().split('-').next().unwrap_or("en")
    }

    /// A plain number in this locale's grouping and decimal sign: `1850000.5` reads
    /// "18,50,000.5" in en-IN and "1.850.000,5" in de. `None` when `text` is not a plain number.
    pub fn number(&self, text: &str) -> Option<String> {
        let t = text.trim();
        let (sign, digits) = match t.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", t),
        };
        let (whole, fraction) = match digits.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (digits, None),
        };
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(whole) || fraction.is_some_and(|f| !all_digits(f)) {
            return None;
        }
        // Grouped through u128 so a long figure never overflows; a longer one reads as written.
        let grouped = num_format::ToFormattedString::to_formatted_string(&whole.parse::<u128>().ok()?, &self.numbers);
        Some(match fraction {
            Some(f) => format!("{sign}{grouped}{}{f}", self.numbers.decimal()),
            None => format!("{sign}{grouped}"),
        })
    }

    /// An amount in `currency` (an ISO code), its sign placed as the locale places it.
    pub fn amount(&self, text: &str, currency: &str) -> Option<String> {
        let number = self.number(text)?;
        let sign = currency_sign(currency);
        let (minus, number) = match number.strip_prefix('-') {
            Some(n) => ("-", n.to_string()),
            None => ("", number),
        };
        Some(if self.sign_after() {
            format!("{minus}{number}\u{a0}{sign}")
        } else if sign.chars().all(|c| c.is_ascii_uppercase()) {
            // A code rather than a sign reads apart from the figure: "CHF 1,200".
            format!("{minus}{sign}\u{a0}{number}")
        } else {
            format!("{minus}{sign}{number}")
        })
    }

    /// A calendar date (`2026-12-05`) as the locale writes one: "5 Dec 2026" in en-IN and en-GB,
    /// "Dec 5, 2026" in en-US, "05.12.2026" in de. `None` when `text` is not a date alone.
    pub fn date(&self, text: &str) -> Option<String> {
        let date = NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()?;
        let pattern = match (self.language(), self.name()) {
            (_, "en" | "en-US" | "en-PH") => "%b %-d, %Y",
            ("en", _) => "%-d %b %Y",
            ("de" | "ru" | "pl" | "cs" | "fi" | "nb" | "da" | "tr" | "uk", _) => "%d.%m.%Y",
            ("fr" | "es" | "it" | "pt" | "el" | "vi" | "id", _) => "%d/%m/%Y",
            ("nl", _) => "%d-%m-%Y",
            ("ja" | "zh" | "ko", _) => "%Y/%m/%d",
            _ => "%Y-%m-%d",
        };
        Some(date.format(pattern).to_string())
    }

    /// Whether the currency sign follows the figure, as in most of continental Europe.
    fn sign_after(&self) -> bool {
        matches!(
            self.language(),
            "de" | "fr" | "es" | "it" | "pt" | "nl" | "pl" | "cs" | "fi" | "sv" | "nb" | "da" | "ru" | "uk" | "el"
        )
    }
}

/// The sign of a currency people know by sight; any other currency by its code.
fn currency_sign(code: &str) -> String {
    match code.to_ascii_uppercase().as_str() {
        "INR" => "₹".into(),
        "USD" => "$".into(),
        "EUR" => "€".into(),
        "GBP" => "£".into(),
        "JPY" | "CNY" => "¥".into(),
        "KRW" => "₩".into(),
        "AUD" => "A$".into(),
        "CAD" => "CA$".into(),
        "SGD" => "S$".into(),
        other => other.to_string(),
    }
}

/// The currencies a field name may end in (`value_inr`, `amountUSD`): ISO codes a record's
/// field is commonly suffixed with.
const CURRENCIES: &[&str] = &[
    "inr", "usd", "eur", "gbp", "jpy", "cny", "krw", "aud", "cad", "sgd", "chf", "aed", "sek", "nok", "dkk", "zar",
    "brl",
];

/// How a field's value is written for people.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FieldFormat {
    /// As the source wrote it.
    #[default]
    Text,
    /// A figure, grouped for the locale.
    Number,
    /// A figure in a currency (an ISO code).
    Amount { currency: String },
    /// A calendar date.
    Date,
}

impl FieldFormat {
    /// The format as an admin writes it on the shape form: `text`, `number`, `date` or
    /// `amount INR`.
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "text" => Some(Self::Text),
            "number" => Some(Self::Number),
            "date" => Some(Self::Date),
            _ => {
                let code = lower.strip_prefix("amount")?.trim();
                let ok = code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic());
                ok.then(|| Self::Amount { currency: code.to_ascii_uppercase() })
            }
        }
    }

    /// The format as the shape form writes it back.
    pub fn words(&self) -> String {
        match self {
            Self::Text => "text".into(),
            Self::Number => "number".into(),
            Self::Date => "date".into(),
            Self::Amount { currency } => format!("amount {currency}"),
        }
    }

    /// `value` as people read it in `locale`; as written when it is not of this format (a
    /// source that sends "n/a" for an amount shows "n/a").
    pub fn show(&self, value: &str, locale: &Locale) -> String {
        let shown = match self {
            Self::Text => None,
            Self::Number => locale.number(value),
            Self::Amount { currency } => locale.amount(value, currency),
            Self::Date => locale.date(value),
        };
        shown.unwrap_or_else(|| value.to_string())
    }
}

/// A field name's words: split at underscores, hyphens, dots, spaces and case changes
/// (`next_follow_up`, `nextFollowUp` and `Next-Follow-Up` are the same three words).
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev = None;
            continue;
        }
        let boundary = match prev {
            Some(p) => (p.is_lowercase() || p.is_ascii_digit()) && c.is_uppercase(),
            None => false,
        };
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A label and format drafted from a field's name, for the admin to confirm or change:
/// `contact_name` is "Contact", text; `value_inr` is "Value", an amount in INR; `next_follow_up`
/// is "Next follow up", a date; `seat_count` is "Seat count", a number.
pub fn draft_field(name: &str) -> (String, FieldFormat) {
    let mut words = name_words(name);
    let mut format = FieldFormat::Text;
    if words.len() > 1 && CURRENCIES.contains(&words[words.len() - 1].as_str()) {
        let code = words.pop().unwrap_or_default();
        format = FieldFormat::Amount { currency: code.to_ascii_uppercase() };
    }
    let last = words.last().map(String::as_str).unwrap_or("");
    let has = |w: &str| words.iter().any(|x| x == w);
    if format == FieldFormat::Text {
        if has("date") || has("follow") || has("due") || has("deadline") || has("birthday") || last == "on" {
            format = FieldFormat::Date;
        } else if matches!(
            last,
            "count"
                | "qty"
                | "quantity"
                | "seats"
                | "total"
                | "score"
                | "amount"
                | "value"
                | "price"
                | "revenue"
                | "size"
        ) {
            format = FieldFormat::Number;
        }
    }
    // "contact_name" names a contact: the trailing "name" says nothing a reader needs.
    if words.len() > 1 && last == "name" {
        words.pop();
    }
    if words.is_empty() {
        return (name.to_string(), format);
    }
    let mut label: Vec<String> = words
        .iter()
        .map(|w| match w.as_str() {
            "id" | "url" | "sla" | "crm" | "api" => w.to_ascii_uppercase(),
            _ => w.clone(),
        })
        .collect();
    if let Some(first) = label.first_mut() {
        let mut chars = first.chars();
        if let Some(c) = chars.next() {
            *first = c.to_uppercase().chain(chars).collect();
        }
    }
    (label.join(" "), format)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(name: &str) -> Locale {
        Locale::parse(name).expect(name)
    }

    #[test]
    fn locale_names_are_read_in_any_case_and_separator() {
        assert_eq!(loc("en-IN").name(), "en-IN");
        assert_eq!(loc("en_in").name(), "en-IN");
        assert_eq!(loc("de").name(), "de");
        assert_eq!(loc("de_de").name(), "de-DE");
        assert_eq!(loc("en-US").name(), "en-US");
        assert!(Locale::parse("xx-YY").is_none());
        assert!(Locale::parse("en-").is_none());
        assert!(Locale::parse("e n").is_none());
        assert!(Locale::parse("").is_none());
    }

    #[test]
    fn amounts_numbers_and_dates_read_in_the_company_locale() {
        let cases = [
            ("en-IN", FieldFormat::Amount { currency: "INR".into() }, "1850000", "₹18,50,000"),
            ("en-US", FieldFormat::Amount { currency: "INR".into() }, "1850000", "₹1,850,000"),
            ("en-US", FieldFormat::Amount { currency: "USD".into() }, "48000.50", "$48,000.50"),
            ("de", FieldFormat::Amount { currency: "EUR".into() }, "1850000", "1.850.000\u{a0}€"),
            ("de-DE", FieldFormat::Number, "1850000", "1.850.000"),
            ("fr-FR", FieldFormat::Date, "2026-12-05", "05/12/2026"),
            ("en-GB", FieldFormat::Amount { currency: "CHF".into() }, "1200", "CHF\u{a0}1,200"),
            ("en-IN", FieldFormat::Amount { currency: "INR".into() }, "-250000", "-₹2,50,000"),
            ("en-IN", FieldFormat::Number, "12345678", "1,23,45,678"),
            ("de", FieldFormat::Number, "1234.5", "1.234,5"),
            ("en-IN", FieldFormat::Number, "42", "42"),
            ("en-IN", FieldFormat::Date, "2026-12-05", "5 Dec 2026"),
            ("en-US", FieldFormat::Date, "2026-12-05", "Dec 5, 2026"),
            ("de", FieldFormat::Date, "2026-12-05", "05.12.2026"),
            ("ja", FieldFormat::Date, "2026-12-05", "2026/12/05"),
            // Not of the format: as the source wrote it.
            ("en-IN", FieldFormat::Amount { currency: "INR".into() }, "n/a", "n/a"),
            ("en-IN", FieldFormat::Number, "1,850,000", "1,850,000"),
            ("en-IN", FieldFormat::Number, "1e9", "1e9"),
            ("en-IN", FieldFormat::Date, "2026-12-05T10:00:00Z", "2026-12-05T10:00:00Z"),
            ("en-IN", FieldFormat::Date, "tomorrow", "tomorrow"),
            ("en-IN", FieldFormat::Text, "1850000", "1850000"),
        ];
        for (locale, format, value, want) in cases {
            assert_eq!(format.show(value, &loc(locale)), want, "{value} as {format:?} in {locale}");
        }
    }

    #[test]
    fn labels_and_formats_are_drafted_from_the_field_name() {
        let cases = [
            ("contact_name", "Contact", FieldFormat::Text),
            ("value_inr", "Value", FieldFormat::Amount { currency: "INR".into() }),
            ("amountUSD", "Amount", FieldFormat::Amount { currency: "USD".into() }),
            ("next_follow_up", "Next follow up", FieldFormat::Date),
            ("nextFollowUp", "Next follow up", FieldFormat::Date),
            ("close-date", "Close date", FieldFormat::Date),
            ("seat_count", "Seat count", FieldFormat::Number),
            ("SeatCount", "Seat count", FieldFormat::Number),
            ("name", "Name", FieldFormat::Text),
            ("status", "Status", FieldFormat::Text),
            ("account_id", "Account ID", FieldFormat::Text),
            ("inr", "Inr", FieldFormat::Text),
            ("__", "__", FieldFormat::Text),
        ];
        for (name, label, format) in cases {
            assert_eq!(draft_field(name), (label.to_string(), format), "{name}");
        }
    }

    #[test]
    fn formats_read_back_as_written() {
        for f in
            [FieldFormat::Text, FieldFormat::Number, FieldFormat::Date, FieldFormat::Amount { currency: "INR".into() }]
        {
            assert_eq!(FieldFormat::parse(&f.words()), Some(f));
        }
        assert_eq!(FieldFormat::parse("Amount inr"), Some(FieldFormat::Amount { currency: "INR".into() }));
        assert_eq!(FieldFormat::parse("amount rupees"), None);
        assert_eq!(FieldFormat::parse("money"), None);
    }
}
