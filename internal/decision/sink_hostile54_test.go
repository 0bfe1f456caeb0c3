package decision

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fullDisk is a file on a disk that fills up: while room >= 0, a write
// takes at most room bytes and fails with ENOSPC past them — what write(2)
// does on a full file system (measured on a 16 KiB tmpfs: a 10001-byte
// append wrote 6383 bytes, the next failed with ENOSPC) and os.File.Write
// passes on as (n < len(p), ENOSPC). room < 0: space again (an operator
// deleted old logs).
type fullDisk struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	room int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.room < 0 {
		return f.buf.Write(p)
	}
	n := min(len(p), f.room)
	f.buf.Write(p[:n])
	f.room -= n
	if n < len(p) {
		return n, syscall.ENOSPC
	}
	return n, nil
}

func (f *fullDisk) setRoom(n int) { f.mu.Lock(); f.room = n; f.mu.Unlock() }

func (f *fullDisk) written() int { f.mu.Lock(); defer f.mu.Unlock(); return f.buf.Len() }

// hostile54: the Writer's promise is that "every write(2) it makes holds
// whole lines only, so a crash can cut at most the last line it was
// writing, never run two records together" — and Open puts a newline after
// a cut last line for the same reason. A full disk cuts a write short
// without a crash: the next record written once there is space again is
// appended to the cut line and is lost with it (every reader — `detour
// decisions`, `detour usage`, the budgets' replay of the log — skips the
// joined line as bad JSON). With sync: always the client already got its
// answer: a record written whole, after the disk had room, is lost.
func TestHostile54RecordAfterAFullDiskIsNotJoinedToTheCutOne(t *testing.T) {
	for _, sync := range []bool{false, true} {
		disk := &fullDisk{room: 40} // the first record is cut after 40 bytes
		w := NewWriter(disk, nil, Options{Sync: sync})
		rec := func(id string) *Decision {
			return &Decision{ID: id, Time: time.Unix(0, 0).UTC(), Route: "r", Outcome: OutcomeOK, Status: 200,
				Attempts: []Attempt{{Target: "t", Provider: "p", Action: ActionDone}}, Transitions: []Transition{}}
		}
		w.Write(rec("cut-by-the-full-disk"))
		for deadline := time.Now().Add(10 * time.Second); disk.written() == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // written (and cut) by the tick, without Sync
		}
		disk.setRoom(-1) // space again
		w.Write(rec("written-after-space-came-back"))
		w.Close()

		found := false
		sc := bufio.NewScanner(bytes.NewReader(disk.buf.Bytes()))
		for sc.Scan() {
			var d Decision
			if json.Unmarshal(sc.Bytes(), &d) == nil && d.ID == "written-after-space-came-back" {
				found = true
			}
		}
		if !found {
			t.Errorf("sync=%v: the record written after the disk had room again is not a line of its own; the log is:\n%s", sync, disk.buf.String())
		}
		if w.Dropped() == 0 {
			t.Errorf("sync=%v: the record the full disk cut is counted nowhere (Dropped() = 0)", sync)
		}
	}
}
