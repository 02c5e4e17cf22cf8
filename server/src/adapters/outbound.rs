//! The one policy every outbound HTTP call follows: connectors, model providers, the outbox and
//! the memory audit's live checks.
//!
//! - Redirects are followed only to the same scheme, host and port, and at most
//!   [`MAX_REDIRECTS`] times: a service an admin configured must not hand our keys or our
//!   request to another host.
//! - An answer is read to at most `max_bytes` (`ENGRAM_OUTBOUND_MAX_BYTES`), counted as it
//!   arrives, so neither a lying Content-Length nor an endless body can fill the memory.
//! - An untrusted address (one taken from memory or from a bot) is checked after its name is
//!   resolved, and the connection is pinned to the address that was checked, so a name that
//!   resolves differently the second time cannot reach an internal service. Connectors and
//!   providers an admin configured may be internal and are not checked.

use serde::de::DeserializeOwned;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// The most an answer may hold unless `ENGRAM_OUTBOUND_MAX_BYTES` says otherwise: 4 MiB.
pub const DEFAULT_MAX_BYTES: usize = 4 * 1024 * 1024;
/// The most same-host redirects a trusted call follows.
pub const MAX_REDIRECTS: usize = 3;
/// How long connecting may take, at most, whatever the call's own timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// What the server's outbound calls are held to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outbound {
    /// `ENGRAM_OUTBOUND_MAX_BYTES`: the largest answer read from any outbound call.
    pub max_bytes: usize,
    /// Stand-in servers a test runs on this machine, which untrusted calls may reach although
    /// they are loopback. Empty unless a test sets it: no setting or variable fills it.
    pub stand_ins: Vec<SocketAddr>,
}

impl Default for Outbound {
    fn default() -> Self {
        Self { max_bytes: DEFAULT_MAX_BYTES, stand_ins: Vec::new() }
    }
}

/// Why an outbound call was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("{0} is not a URL")]
    NotAUrl(String),
    #[error("only http and https addresses are called, and {0} is neither")]
    Scheme(String),
    #[error("an address taken from memory may not carry a user name or password")]
    Credentials,
    #[error("{host} could not be resolved")]
    Unresolved { host: String },
    #[error("{} a {kind} address, and an address from memory or a bot is never called there", named_at(host, addr))]
    Forbidden { host: String, addr: IpAddr, kind: AddressKind },
    #[error("the answer is larger than {limit} bytes, the most Engram reads (ENGRAM_OUTBOUND_MAX_BYTES)")]
    TooLarge { limit: usize },
    #[error("the answer is not JSON")]
    NotJson,
    #[error(transparent)]
    Http(#[from] reqwest::Error),
}

/// The start of a refusal's sentence: the address alone when the URL named it, else the name and
/// what it resolved to.
fn named_at(host: &str, addr: &IpAddr) -> String {
    if host.trim_start_matches('[').trim_end_matches(']') == addr.to_string() {
        format!("{addr} is")
    } else {
        format!("{host} is at {addr},")
    }
}

/// The kinds of address an untrusted call never connects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressKind {
    Unspecified,
    Loopback,
    Private,
    SharedNat,
    LinkLocal,
    Multicast,
    Broadcast,
    Documentation,
    Benchmarking,
    Reserved,
}

impl fmt::Display for AddressKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AddressKind::Unspecified => "unspecified",
            AddressKind::Loopback => "loopback",
            AddressKind::Private => "private",
            AddressKind::SharedNat => "carrier-grade NAT",
            AddressKind::LinkLocal => "link-local",
            AddressKind::Multicast => "multicast",
            AddressKind::Broadcast => "broadcast",
            AddressKind::Documentation => "documentation",
            AddressKind::Benchmarking => "benchmarking",
            AddressKind::Reserved => "reserved",
        })
    }
}

/// Whether `addr` lies in `net/len`.
fn in_v4(addr: Ipv4Addr, net: [u8; 4], len: u32) -> bool {
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    u32::from(addr) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn in_v6(addr: Ipv6Addr, net: Ipv6Addr, len: u32) -> bool {
    let mask = if len == 0 { 0 } else { u128::MAX << (128 - len) };
    u128::from(addr) & mask == u128::from(net) & mask
}

/// The kind of an IPv4 address an untrusted call may not reach, or `None` for a public one.
pub fn refused_v4(ip: Ipv4Addr) -> Option<AddressKind> {
    use AddressKind::*;
    let ranges: [([u8; 4], u32, AddressKind); 15] = [
        ([0, 0, 0, 0], 8, Unspecified),
        ([10, 0, 0, 0], 8, Private),
        ([100, 64, 0, 0], 10, SharedNat),
        ([127, 0, 0, 0], 8, Loopback),
        ([169, 254, 0, 0], 16, LinkLocal),
        ([172, 16, 0, 0], 12, Private),
        // IETF protocol assignments, such as the NAT64 discovery addresses.
        ([192, 0, 0, 0], 24, Reserved),
        ([192, 0, 2, 0], 24, Documentation),
        ([192, 88, 99, 0], 24, Reserved),
        ([192, 168, 0, 0], 16, Private),
        ([198, 18, 0, 0], 15, Benchmarking),
        ([198, 51, 100, 0], 24, Documentation),
        ([203, 0, 113, 0], 24, Documentation),
        ([224, 0, 0, 0], 4, Multicast),
        ([255, 255, 255, 255], 32, Broadcast),
    ];
    if let Some((_, _, kind)) = ranges.iter().find(|(net, len, _)| in_v4(ip, *net, *len)) {
        return Some(*kind);
    }
    // 240.0.0.0/4 is reserved for future use; its last address was the broadcast, caught above.
    in_v4(ip, [240, 0, 0, 0], 4).then_some(Reserved)
}

/// The IPv4 address an IPv6 address carries, where the network delivers it to that IPv4
/// address: IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let o = ip.octets();
    let last = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    let s = ip.segments();
    if s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0) {
        return Some(last);
    }
    if in_v6(ip, Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96) {
        return Some(last);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
    }
    None
}

/// The kind of an IPv6 address an untrusted call may not reach, or `None` for a public one.
pub fn refused_v6(ip: Ipv6Addr) -> Option<AddressKind> {
    use AddressKind::*;
    if ip.is_unspecified() {
        return Some(Unspecified);
    }
    if ip.is_loopback() {
        return Some(Loopback);
    }
    if let Some(v4) = embedded_v4(ip) {
        return refused_v4(v4);
    }
    let ranges: [(Ipv6Addr, u32, AddressKind); 7] = [
        (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, LinkLocal),
        // Site-local: deprecated, still routed inside some networks.
        (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, Private),
        (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, Private),
        (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, Multicast),
        (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, Documentation),
        (Ipv6Addr::new(0x2001, 0x2, 0, 0, 0, 0, 0, 0), 48, Benchmarking),
        // The discard-only prefix.
        (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64, Reserved),
    ];
    ranges.iter().find(|(net, len, _)| in_v6(ip, *net, *len)).map(|(_, _, kind)| *kind)
}

pub fn refused(ip: IpAddr) -> Option<AddressKind> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => refused_v6(v6),
    }
}

/// Whether a redirect stays with the scheme, host and port the call was made to.
fn same_origin(a: &reqwest::Url, b: &reqwest::Url) -> bool {
    a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
}

/// Why a trusted call did not follow a redirect; the caller words it from the error's
/// `is_redirect()`.
#[derive(Debug, thiserror::Error)]
enum RedirectRefused {
    #[error("it redirected to {0}, another host than the one asked, and such a redirect is not followed")]
    OtherHost(String),
    #[error("it redirected more than {MAX_REDIRECTS} times")]
    TooMany,
}

fn builder(timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder().timeout(timeout).connect_timeout(CONNECT_TIMEOUT.min(timeout))
}

impl Outbound {
    /// Reads `ENGRAM_OUTBOUND_MAX_BYTES`; a value that is not a positive number of bytes is
    /// ignored, with a warning, for the default.
    pub fn from_env() -> Self {
        let d = Self::default();
        let max_bytes = match std::env::var("ENGRAM_OUTBOUND_MAX_BYTES").ok().filter(|v| !v.trim().is_empty()) {
            None => d.max_bytes,
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => {
                    tracing::warn!(
                        value = v,
                        "ENGRAM_OUTBOUND_MAX_BYTES is not a positive number of bytes; 4 MiB it is"
                    );
                    d.max_bytes
                }
            },
        };
        Self { max_bytes, ..d }
    }

    /// The client for addresses an admin configured (connectors, model providers, the outbox):
    /// any address, and redirects only to the same scheme, host and port.
    pub fn client(&self, timeout: Duration) -> reqwest::Client {
        let policy = reqwest::redirect::Policy::custom(|attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                return attempt.error(RedirectRefused::TooMany);
            }
            let first = attempt.previous().first().cloned();
            match first {
                Some(from) if !same_origin(&from, attempt.url()) => {
                    let to = attempt.url().origin().ascii_serialization();
                    attempt.error(RedirectRefused::OtherHost(to))
                }
                _ => attempt.follow(),
            }
        });
        // Building fails only when the TLS backend cannot start, and then no call could be made.
        builder(timeout).redirect(policy).build().expect("the outbound HTTP client")
    }

    /// A client for one untrusted address (a URL taken from memory or from a bot), and the URL
    /// parsed: http or https only, no credentials, every address its host resolves to outside
    /// the refused ranges, the connection pinned to those addresses, no proxy and no redirects.
    pub async fn untrusted(
        &self,
        url: &str,
        timeout: Duration,
    ) -> Result<(reqwest::Client, reqwest::Url), OutboundError> {
        let parsed = reqwest::Url::parse(url).map_err(|_| OutboundError::NotAUrl(url.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(OutboundError::Scheme(url.to_string()));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(OutboundError::Credentials);
        }
        let host =
            parsed.host_str().filter(|h| !h.is_empty()).ok_or_else(|| OutboundError::NotAUrl(url.to_string()))?;
        let port = parsed.port_or_known_default().ok_or_else(|| OutboundError::NotAUrl(url.to_string()))?;
        // The URL parser has already turned every spelling of an IP (decimal, octal, short
        // forms) into its dotted or bracketed form.
        let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok();
        let addrs: Vec<SocketAddr> = match literal {
            Some(ip) => vec![SocketAddr::new(ip, port)],
            None => tokio::net::lookup_host((host, port))
                .await
                .map_err(|_| OutboundError::Unresolved { host: host.to_string() })?
                .collect(),
        };
        if addrs.is_empty() {
            return Err(OutboundError::Unresolved { host: host.to_string() });
        }
        // Every address is checked, since the connection may be made to any of them.
        for addr in &addrs {
            if let Some(kind) = refused(addr.ip()) {
                if !self.stand_ins.contains(addr) {
                    return Err(OutboundError::Forbidden { host: host.to_string(), addr: addr.ip(), kind });
                }
            }
        }
        let mut b = builder(timeout).redirect(reqwest::redirect::Policy::none()).no_proxy();
        if literal.is_none() {
            b = b.resolve_to_addrs(host, &addrs);
        }
        Ok((b.build()?, parsed))
    }

    /// The answer's body, read chunk by chunk and refused once it passes `max_bytes`.
    pub async fn read(&self, mut resp: reqwest::Response) -> Result<Vec<u8>, OutboundError> {
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await? {
            if body.len() + chunk.len() > self.max_bytes {
                return Err(OutboundError::TooLarge { limit: self.max_bytes });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// The answer's body as JSON, within `max_bytes`.
    pub async fn read_json<T: DeserializeOwned>(&self, resp: reqwest::Response) -> Result<T, OutboundError> {
        let body = self.read(resp).await?;
        serde_json::from_slice(&body).map_err(|_| OutboundError::NotJson)
    }
}

#[cfg(test)]
mod tests {
    use super::AddressKind::*;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_refused_range_is_refused_on_both_sides_of_its_edges() {
        let v4: &[(&str, Option<AddressKind>)] = &[
            ("0.0.0.0", Some(Unspecified)),
            ("0.255.255.255", Some(Unspecified)),
            ("1.0.0.0", None),
            ("9.255.255.255", None),
            ("10.0.0.0", Some(Private)),
            ("10.255.255.255", Some(Private)),
            ("11.0.0.0", None),
            ("100.63.255.255", None),
            ("100.64.0.0", Some(SharedNat)),
            ("100.127.255.255", Some(SharedNat)),
            ("100.128.0.0", None),
            ("126.255.255.255", None),
            ("127.0.0.0", Some(Loopback)),
            ("127.0.0.1", Some(Loopback)),
            ("127.255.255.255", Some(Loopback)),
            ("128.0.0.0", None),
            ("169.253.255.255", None),
            ("169.254.0.0", Some(LinkLocal)),
            ("169.254.169.254", Some(LinkLocal)),
            ("169.254.255.255", Some(LinkLocal)),
            ("169.255.0.0", None),
            ("172.15.255.255", None),
            ("172.16.0.0", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("172.32.0.0", None),
            ("191.255.255.255", None),
            ("192.0.0.0", Some(Reserved)),
            ("192.0.0.255", Some(Reserved)),
            ("192.0.1.0", None),
            ("192.0.2.0", Some(Documentation)),
            ("192.0.2.255", Some(Documentation)),
            ("192.0.3.0", None),
            ("192.88.99.1", Some(Reserved)),
            ("192.167.255.255", None),
            ("192.168.0.0", Some(Private)),
            ("192.168.255.255", Some(Private)),
            ("192.169.0.0", None),
            ("198.17.255.255", None),
            ("198.18.0.0", Some(Benchmarking)),
            ("198.19.255.255", Some(Benchmarking)),
            ("198.20.0.0", None),
            ("198.51.99.255", None),
            ("198.51.100.0", Some(Documentation)),
            ("198.51.100.255", Some(Documentation)),
            ("198.51.101.0", None),
            ("203.0.112.255", None),
            ("203.0.113.0", Some(Documentation)),
            ("203.0.113.255", Some(Documentation)),
            ("203.0.114.0", None),
            ("223.255.255.255", None),
            ("224.0.0.0", Some(Multicast)),
            ("239.255.255.255", Some(Multicast)),
            ("240.0.0.0", Some(Reserved)),
            ("255.255.255.254", Some(Reserved)),
            ("255.255.255.255", Some(Broadcast)),
            ("8.8.8.8", None),
            ("93.184.216.34", None),
        ];
        for (ip, kind) in v4 {
            assert_eq!(refused(ip.parse().unwrap()), *kind, "{ip}");
        }
        let v6: &[(&str, Option<AddressKind>)] = &[
            ("::", Some(Unspecified)),
            ("::1", Some(Loopback)),
            ("::2", Some(Unspecified)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:7f00:1", Some(Loopback)),
            ("::ffff:10.1.2.3", Some(Private)),
            ("::ffff:169.254.169.254", Some(LinkLocal)),
            ("::ffff:8.8.8.8", None),
            ("::127.0.0.1", Some(Loopback)),
            ("64:ff9b::127.0.0.1", Some(Loopback)),
            ("64:ff9b::8.8.8.8", None),
            ("2002:7f00:1::", Some(Loopback)),
            ("2002:0808:0808::", None),
            ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("fe80::", Some(LinkLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(LinkLocal)),
            ("fec0::1", Some(Private)),
            ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("fc00::", Some(Private)),
            ("fd12:3456::1", Some(Private)),
            ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(Private)),
            ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(Private)),
            ("ff00::", Some(Multicast)),
            ("ff02::1", Some(Multicast)),
            ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("2001:db8::", Some(Documentation)),
            ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", Some(Documentation)),
            ("2001:db9::", None),
            ("2001:2::1", Some(Benchmarking)),
            ("100::1", Some(Reserved)),
            ("100:0:0:1::", None),
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4001::200e", None),
        ];
        for (ip, kind) in v6 {
            assert_eq!(refused(ip.parse().unwrap()), *kind, "{ip}");
        }
    }

    proptest! {
        /// An IPv4 address and its IPv4-mapped IPv6 form are judged alike, so the mapped form is
        /// no way around the check.
        #[test]
        fn a_mapped_address_is_judged_as_the_address_it_carries(bits in any::<u32>()) {
            let v4 = Ipv4Addr::from(bits);
            prop_assert_eq!(refused_v6(v4.to_ipv6_mapped()), refused_v4(v4));
        }

        /// Every address the standard library calls private, loopback, link-local, multicast,
        /// broadcast, documentation or unspecified is refused.
        #[test]
        fn what_the_standard_library_calls_internal_is_refused(bits in any::<u32>()) {
            let ip = Ipv4Addr::from(bits);
            let internal = ip.is_private() || ip.is_loopback() || ip.is_link_local() || ip.is_multicast()
                || ip.is_broadcast() || ip.is_documentation() || ip.is_unspecified();
            prop_assert!(!internal || refused_v4(ip).is_some(), "{} passed", ip);
        }
    }

    #[tokio::test]
    async fn untrusted_urls_are_refused_before_any_connection() {
        let o = Outbound::default();
        let t = Duration::from_secs(1);
        let refused_with = |r: Result<_, OutboundError>| r.err().map(|e| e.to_string()).unwrap_or_default();
        for (url, why) in [
            ("file:///etc/passwd", "only http and https"),
            ("ftp://example.com/", "only http and https"),
            ("http://user:pw@example.com/", "user name or password"),
            ("http://127.0.0.1:9/", "127.0.0.1 is a loopback address"),
            ("http://2130706433/", "127.0.0.1 is a loopback address"),
            ("http://0x7f.1/", "127.0.0.1 is a loopback address"),
            ("http://[::1]/", "::1 is a loopback address"),
            ("http://[::ffff:169.254.169.254]/", "a link-local address"),
            ("http://169.254.169.254/latest/meta-data", "a link-local address"),
            ("http://10.0.0.1/", "a private address"),
            ("http://localhost:9/", "localhost is at "),
            ("not a url", "is not a URL"),
        ] {
            let why_not = refused_with(o.untrusted(url, t).await);
            assert!(why_not.contains(why), "{url}: {why_not:?}");
        }
        let stand_in: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let allowed = Outbound { stand_ins: vec![stand_in], ..Outbound::default() };
        assert!(allowed.untrusted("http://127.0.0.1:9/", t).await.is_ok(), "the test's own stand-in");
        let why_not = refused_with(allowed.untrusted("http://127.0.0.1:10/", t).await);
        assert!(why_not.contains("loopback"), "another port is not the stand-in: {why_not}");
    }
}
