'use strict';

// At most `max` characters of `text`, cut at a word boundary, with an
// ellipsis when something was cut.
function truncate(text, max) {
  if (text.length <= max) {
    return text;
  }
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return (space > 0 ? cut.slice(0, space) : cut).trimEnd() + '…';
}

module.exports = { truncate };
