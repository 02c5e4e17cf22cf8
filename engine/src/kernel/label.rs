//! How sensitive a source's data is: the label a toolset carries, which decides which model may
//! be sent it and who may read it.

use serde::{Deserialize, Serialize};

/// A toolset's data label, lowest first: the derived order is the order of sensitivity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataLabel {
    Public,
    Internal,
    Confidential,
    Personal,
}

crate::string_enum!(DataLabel {
    Public => "public",
    Internal => "internal",
    Confidential => "confidential",
    Personal => "personal",
});
