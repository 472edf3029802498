//! WebDAV, the pure part: the `PROPFIND` body Satori sends to list a sync folder, and the reading
//! of the `207 Multi-Status` answer (the objects in the folder with their ETags), as Nextcloud,
//! ownCloud, Apache `mod_dav`, nginx, rclone and WsgiDAV write it (any namespace prefix, hrefs as
//! paths or full URLs, percent-encoded, ETags quoted or not).

/// The body of a `PROPFIND` (`Depth: 1`) asking only what a listing needs.
pub const PROPFIND: &str = r#"<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/></d:prop></d:propfind>"#;

/// An object in the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name (the last segment of its path, decoded).
    pub name: String,
    /// Its ETag as the server wrote it (compare with [`bare_etag`]).
    pub etag: String,
}

/// The `Authorization` header of Basic authentication for `user` and `password` (UTF-8).
pub fn basic_auth(user: &str, password: &str) -> String {
    use base64::Engine as _;
    let pair = format!("{user}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// The folder URL typed in Settings, checked: `http(s)://`, ending with `/` (the objects are
/// named under it).
pub fn folder_url(text: &str) -> Result<String, String> {
    let url = text.trim();
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://"))
        || url.contains(char::is_whitespace)
    {
        return Err(format!("“{url}” is not an http:// or https:// URL"));
    }
    // A user name or password inside the URL would be repeated wherever the URL is shown.
    let authority = url.split("://").nth(1).unwrap_or("");
    let authority = authority.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return Err(
            "the WebDAV URL carries a user name or password: type them in their own fields instead"
                .into(),
        );
    }
    Ok(if url.ends_with('/') {
        url.to_string()
    } else {
        format!("{url}/")
    })
}

/// The `If-Match` value for ETag `etag` as a server wrote it: as it is when quoted (weak
/// ones too: a server that writes only weak ETags refuses every conditional write, which is
/// said, never worked around), quoted when a listing gave it bare.
pub fn if_match(etag: &str) -> String {
    let e = etag.trim();
    if e.starts_with('"') || e.starts_with("W/") {
        e.to_string()
    } else {
        format!("\"{e}\"")
    }
}

/// Whether a write can be made conditional on `etag`: not on a weak one (`W/…`), which
/// `If-Match` never matches (RFC 9110 compares strongly), so a server that gives only weak
/// ETags refuses every such write.
pub fn strong(etag: &str) -> bool {
    !etag.trim_start().starts_with("W/")
}

/// An ETag as compared: without `W/` and quotes.
pub fn bare_etag(etag: &str) -> &str {
    let e = etag.trim();
    let e = e.strip_prefix("W/").unwrap_or(e);
    e.trim_matches('"')
}

/// The objects (not folders) a `207 Multi-Status` lists, but the folder itself.
pub fn listing(xml: &str) -> Result<Vec<Listed>, String> {
    if !has_tag(xml, "multistatus") {
        return Err("the server's answer to PROPFIND is not a WebDAV listing".into());
    }
    let mut out = Vec::new();
    for response in elements(xml, "response") {
        let href = elements(response, "href")
            .next()
            .map(text)
            .unwrap_or_default();
        let collection = elements(response, "resourcetype")
            .next()
            .is_some_and(|r| has_tag(r, "collection"));
        if collection || href.is_empty() {
            continue;
        }
        let name = decode(
            href.trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default(),
        );
        let etag = elements(response, "getetag")
            .next()
            .map(text)
            .unwrap_or_default();
        out.push(Listed {
            name,
            etag: etag.trim().to_string(),
        });
    }
    Ok(out)
}

/// Whether `xml` has an element named `local` (in any namespace).
fn has_tag(xml: &str, local: &str) -> bool {
    starts(xml, local).next().is_some()
}

/// Where each start tag named `local` (any prefix) ends, with whether it closes itself.
fn starts<'a>(xml: &'a str, local: &'a str) -> impl Iterator<Item = (usize, usize, bool)> + 'a {
    xml.match_indices('<').filter_map(move |(at, _)| {
        let rest = &xml[at + 1..];
        let end = rest.find('>')?;
        let tag = &rest[..end];
        if tag.starts_with(['/', '?', '!']) {
            return None;
        }
        let name = tag.split(|c: char| c.is_whitespace() || c == '/').next()?;
        let bare = name.rsplit(':').next()?;
        (bare == local).then(|| (at, at + 1 + end + 1, tag.ends_with('/')))
    })
}

/// The contents of each element named `local` (any prefix); empty for a self-closing one.
fn elements<'a>(xml: &'a str, local: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    starts(xml, local).map(move |(_, open_end, closed)| {
        if closed {
            return "";
        }
        let rest = &xml[open_end..];
        // The matching end tag: the first `</…local>` (these elements do not nest).
        let close = rest.match_indices("</").find(|(i, _)| {
            let tag = &rest[i + 2..];
            let name = tag.split('>').next().unwrap_or_default().trim();
            name.rsplit(':').next() == Some(local)
        });
        close.map_or(rest, |(i, _)| &rest[..i])
    })
}

/// An element's text, entities decoded.
fn text(s: &str) -> String {
    s.trim()
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A path segment, percent-decoded (invalid sequences kept as they are).
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, etag: &str) -> Listed {
        Listed {
            name: name.into(),
            etag: etag.into(),
        }
    }

    #[test]
    fn listings_of_the_servers_people_use_are_read() {
        // WsgiDAV (ns0:, unquoted ETags), as captured from the test server.
        let wsgidav = r#"<?xml version="1.0" encoding="utf-8" ?>
<ns0:multistatus xmlns:ns0="DAV:"><ns0:response><ns0:href>/sync/</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype><ns0:collection /></ns0:resourcetype></ns0:prop></ns0:propstat></ns0:response><ns0:response><ns0:href>/sync/a1b2</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype /><ns0:getetag>10946355-1796558988-5</ns0:getetag></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response></ns0:multistatus>"#;
        // Nextcloud / Apache (d: or D:, quoted ETags, full hrefs, encoded names).
        let nextcloud = r#"<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">
 <d:response><d:href>/remote.php/dav/files/ann/Satori%20sync/</d:href>
  <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype><d:getetag>&quot;6571&quot;</d:getetag></d:prop></d:propstat></d:response>
 <d:response><d:href>/remote.php/dav/files/ann/Satori%20sync/satori-sync.json</d:href>
  <d:propstat><d:prop><d:resourcetype/><d:getetag>&quot;9a8b&quot;</d:getetag></d:prop></d:propstat></d:response>
 <d:response><d:href>https://dav.example/remote.php/dav/files/ann/Satori%20sync/c%C3%A9</d:href>
  <d:propstat><d:prop><d:resourcetype></d:resourcetype><d:getetag>W/"77"</d:getetag></d:prop></d:propstat></d:response>
</d:multistatus>"#;
        let apache = r#"<D:multistatus xmlns:D="DAV:"><D:response xmlns:lp1="DAV:"><D:href>/dav/x</D:href><D:propstat><D:prop><lp1:resourcetype/><lp1:getetag>"2-5f"</lp1:getetag></D:prop></D:propstat></D:response></D:multistatus>"#;
        let cases = [
            (wsgidav, vec![listed("a1b2", "10946355-1796558988-5")]),
            (
                nextcloud,
                vec![
                    listed("satori-sync.json", "\"9a8b\""),
                    listed("cé", "W/\"77\""),
                ],
            ),
            (apache, vec![listed("x", "\"2-5f\"")]),
        ];
        for (xml, want) in cases {
            assert_eq!(listing(xml).unwrap(), want);
        }
        assert!(listing("<html><body>Login</body></html>").is_err());
        assert_eq!(
            listing(r#"<d:multistatus xmlns:d="DAV:"/>"#).unwrap(),
            vec![]
        );
    }

    #[test]
    fn folders_and_credentials_are_written_as_servers_take_them() {
        assert_eq!(basic_auth("ann", "pw"), "Basic YW5uOnB3");
        assert_eq!(basic_auth("安", "密"), "Basic 5a6JOuWvhg==");
        assert_eq!(
            folder_url(" https://dav.example/sync ").unwrap(),
            "https://dav.example/sync/"
        );
        assert_eq!(
            folder_url("http://127.0.0.1:8/s/").unwrap(),
            "http://127.0.0.1:8/s/"
        );
        assert!(folder_url("dav.example/sync").is_err());
        assert!(folder_url("https://dav.example/a b").is_err());
        // A password in the URL is refused (it would be shown back in the status line).
        let e = folder_url("https://ann:secret@dav.example/sync/").unwrap_err();
        assert!(!e.contains("secret"), "{e}");
        assert!(folder_url("https://dav.example/files/a@b/").is_ok());
    }

    #[test]
    fn etags_go_back_as_the_server_wrote_them() {
        for (etag, header) in [
            ("\"a\"", "\"a\""),
            ("W/\"a\"", "W/\"a\""),
            ("a-1", "\"a-1\""),
        ] {
            assert_eq!(if_match(etag), header);
        }
    }

    #[test]
    fn only_a_strong_etag_can_condition_a_write() {
        for (etag, ok) in [
            ("\"a\"", true),
            ("a-1", true),
            ("W/\"a\"", false),
            (" W/\"a\"", false),
        ] {
            assert_eq!(strong(etag), ok, "{etag}");
        }
    }

    #[test]
    fn etags_compare_bare() {
        for (raw, bare) in [
            ("\"a\"", "a"),
            ("W/\"a\"", "a"),
            ("a", "a"),
            (" \"a-1\" ", "a-1"),
        ] {
            assert_eq!(bare_etag(raw), bare);
        }
    }
}
