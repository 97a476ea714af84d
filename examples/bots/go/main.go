// A Summon bot in Go, from protocol/README.md alone: plays a random legal move at every
// table where its username is seated, for ever.  Configuration from the environment (what
// `summon bot-check` and `summon match` set): SUMMON_BROKER, SUMMON_USER, SUMMON_PASSWORD,
// SUMMON_PREFIX, and SUMMON_CELLS when the deployment has several cells (brokers): one more
// connection to each, the same account on all, every table's moves sent on the connection
// its states came from (onMessage answers on the client the message arrived on).
package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/vmihailenco/msgpack/v5"
)

// move is what we send; seq is an int64 so msgpack encodes an integer (a float64 would not do)
type move struct {
	V    int    `msgpack:"v"`
	Type string `msgpack:"type"`
	Seq  int64  `msgpack:"seq"`
	Move string `msgpack:"move"`
}

type seatState struct { // the fields of seat_state and error that we use
	Type   string   `msgpack:"type"`
	V      int64    `msgpack:"v"`
	Table  string   `msgpack:"table"`
	Seat   int64    `msgpack:"seat"`
	Seq    int64    `msgpack:"seq"`
	Epoch  int64    `msgpack:"epoch"` // 0 when absent (protocol/README.md, "Epoch")
	Status string   `msgpack:"status"`
	ToMove []int64  `msgpack:"to_move"`
	Legal  []string `msgpack:"legal"`
	Code   string   `msgpack:"code"`
	Detail string   `msgpack:"detail"`
}

var (
	user     = os.Getenv("SUMMON_USER")
	prefix   = env("SUMMON_PREFIX", "summon/v1")
	mu       sync.Mutex
	latest   = map[string]seatState{} // table -> newest seat_state seen (never act on an older one)
	answered = map[string]move{}      // table -> the move we last sent
)

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func myTurn(st seatState) bool {
	if st.Status != "playing" || len(st.Legal) == 0 {
		return false
	}
	for _, s := range st.ToMove {
		if s == st.Seat {
			return true
		}
	}
	return false
}

func send(c mqtt.Client, table string, seq int64, text string) {
	m := move{V: 1, Type: "move", Seq: seq, Move: text}
	answered[table] = m
	payload, _ := msgpack.Marshal(&m)
	c.Publish(prefix+"/t/"+table+"/move/"+user, 1, false, payload) // QoS 1, never retained
}

func pick(legal []string) string { return legal[rand.Intn(len(legal))] } // your strategy here

func onMessage(c mqtt.Client, msg mqtt.Message) {
	defer func() { recover() }()             // a bad message must not stop the bot
	parts := strings.Split(msg.Topic(), "/") // <p>/t/<table>/seat/<user>/<kind>
	n := len(parts)
	if len(msg.Payload()) == 0 || n < 3 || parts[n-2] != user || parts[n-3] != "seat" {
		return // a deleted retained message, or not our own seat topic
	}
	var m seatState
	if err := msgpack.Unmarshal(msg.Payload(), &m); err != nil || m.V != 1 {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	st, known := latest[m.Table]
	switch {
	case parts[n-1] == "state" && m.Type == "seat_state":
		if known && m.Seq < st.Seq && m.Epoch == st.Epoch {
			return // a late, older state (another epoch: the table was restored to an earlier point)
		}
		latest[m.Table] = m
		if !myTurn(m) {
			return // finished tables are history, not a turn
		}
		if prev, ok := answered[m.Table]; ok && prev.Seq == m.Seq {
			send(c, m.Table, m.Seq, prev.Move) // the same state again: our move may be lost
		} else {
			send(c, m.Table, m.Seq, pick(m.Legal))
		}
	case parts[n-1] == "error" && m.Type == "error":
		fmt.Println("refused:", m.Code, m.Detail)
		if !known || m.Seq != st.Seq || !myTurn(st) {
			return // the table moved on: a newer state is coming
		}
		if m.Code == "move/illegal" || m.Code == "move/unparseable" {
			send(c, st.Table, st.Seq, pick(st.Legal))
		} else if prev, ok := answered[st.Table]; ok && m.Code == "rate/limited" {
			send(c, st.Table, st.Seq, prev.Move)
		}
	}
}

func main() {
	if user == "" {
		fmt.Fprintln(os.Stderr, "set SUMMON_USER (and SUMMON_PASSWORD, SUMMON_BROKER)")
		os.Exit(2)
	}
	rand.Seed(time.Now().UnixNano())
	home := env("SUMMON_BROKER", "mqtt://127.0.0.1:1883")
	brokers := []string{home}
	if raw := strings.TrimSpace(os.Getenv("SUMMON_CELLS")); raw != "" { // {"cell": "mqtt://HOST:PORT", ...}
		cells := map[string]string{}
		if err := json.Unmarshal([]byte(raw), &cells); err != nil {
			fmt.Fprintln(os.Stderr, "SUMMON_CELLS is not a JSON object of cell addresses:", err)
			os.Exit(2)
		}
		for _, addr := range cells {
			if hostPort(addr) != hostPort(home) {
				brokers = append(brokers, addr)
			}
		}
	}
	clients := []mqtt.Client{}
	for _, b := range brokers {
		clients = append(clients, dial(b))
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	for _, c := range clients {
		c.Disconnect(250)
	}
}

func hostPort(addr string) string {
	if u, err := url.Parse(addr); err == nil {
		return u.Host
	}
	return addr
}

// dial connects to one broker (retrying until it is up) with the bot's account.
func dial(addr string) mqtt.Client {
	broker := strings.Replace(addr, "mqtt://", "tcp://", 1)
	opts := mqtt.NewClientOptions().AddBroker(broker).SetClientID(user).SetUsername(user).
		SetPassword(os.Getenv("SUMMON_PASSWORD")).SetCleanSession(true).SetProtocolVersion(4).
		SetAutoReconnect(true).SetMaxReconnectInterval(2 * time.Second).
		SetOrderMatters(true)
	opts.SetOnConnectHandler(func(c mqtt.Client) { // runs again after every reconnect: resubscribe
		c.Subscribe(prefix+"/t/+/seat/"+user+"/#", 1, onMessage)
	})
	client := mqtt.NewClient(opts)
	for t := client.Connect(); t.Wait() && t.Error() != nil; t = client.Connect() {
		fmt.Println("connect:", addr, t.Error()) // not up yet: try again
		time.Sleep(time.Second)
	}
	return client
}
