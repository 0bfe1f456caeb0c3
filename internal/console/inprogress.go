package console

import (
	"net/http"

	"github.com/detour-llm/detour/internal/inprogress"
)

// maxInProgress bounds the requests in progress one answer lists.
const maxInProgress = 200

// apiInProgress lists the requests this replica is serving now, the oldest
// first (InProgress): {now, total, requests: [inprogress.View]}. A
// request's decision record appears on the Decisions page when it ends.
func (c *Console) apiInProgress(w http.ResponseWriter, r *http.Request) {
	views, total := c.progress.List(maxInProgress)
	if views == nil {
		views = []inprogress.View{}
	}
	writeJSON(w, map[string]any{"now": c.opt.Now().UTC(), "total": total, "requests": views})
}
