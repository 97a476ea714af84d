module summon-example-bot

go 1.19

require (
	github.com/eclipse/paho.mqtt.golang v1.4.3
	github.com/vmihailenco/msgpack/v5 v5.3.5
)
