// Package browser tests the operator console (/ui) in a real browser:
// headless Chromium driven from Go (chromedp) against a live gateway and
// loopback fake providers. It is its own test binary, so the rest of the
// end-to-end tests compile without the browser driver.
//
// Without a chromium binary the tests are skipped with a message, unless CI
// is set (CI=true): then a missing browser fails them. Screenshots of every
// page (laptop and phone widths) are saved under $DETOUR_SCREENSHOTS, or
// detour-console-screenshots in the temporary directory; the tests log the
// path (go test -v).
package browser
