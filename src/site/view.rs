//! What a study's page sees of the site it is published in: the way back
//! to the index, and its card for shared links.

use super::place::Place;
use crate::render::SiteView;

/// What a study's page sees of its site ([`crate::render::BookView::site`]).
pub fn view(place: &Place, config: &crate::config::Config) -> SiteView {
    let base = config.output.base_url.clone().filter(|b| b.contains("://"));
    SiteView {
        title: place.title.clone(),
        root: place.root(),
        card: format!("{}{}", base.as_deref().unwrap_or_default(), super::card::PNG),
        url: base.unwrap_or_default(),
    }
}
