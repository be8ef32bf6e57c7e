# A /g regex keeps its lastIndex between test() calls: drop the flag.
sed -i 's|^const VALID_TAG = /^\[a-z0-9\]+(-\[a-z0-9\]+)\*\$/g;$|const VALID_TAG = /^[a-z0-9]+(-[a-z0-9]+)*$/;|' tags.js
grep -q '^const VALID_TAG = /^\[a-z0-9\]+(-\[a-z0-9\]+)\*\$/;$' tags.js
