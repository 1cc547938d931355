package iptables

// optionTable lists the iptables command, match and target options that
// iptables.get_rules recognises in iptables-save output, in the order the
// parsed rule reports them. Entries are separated by commas or line
// breaks: the option's spellings, then "=dest" when its key differs from
// the first long spelling without the dashes.
const optionTable = `
-A --append , -D --delete , -I --insert , -R --replace , -L --list
-F --flush , -Z --zero , -N --new-chain , -X --delete-chain , -P --policy
-E --rename-chain , -p --protocol , -s --source , -d --destination
-j --jump , -g --goto , -i --in-interface , -o --out-interface
-f --fragment , -c --set-counters , -m --match , --src-type , --dst-type
--limit-iface-in , --limit-iface-out , --ahspi , --ahlen , --ahres
--bytecode , --cgroup , --cluster-total-nodes , --cluster-local-node
--cluster-local-nodemask , --cluster-hash-seed , --h-length , --mangle-mac-s
--mangle-mac-d , --comment , --connbytes , --connbytes-dir
--connbytes-mode , --label , --connlimit-upto , --connlimit-above
--connlimit-mask , --connlimit-saddr , --connlimit-daddr , --mark
--ctstate , --ctproto , --ctorigsrc , --ctorigdst , --ctreplsrc
--ctrepldst , --ctorigsrcport , --ctorigdstport , --ctreplsrcport
--ctrepldstport , --ctstatus , --ctexpire , --ctdir , --cpu
--sport --source-port =source_port
--dport --destination-port =destination_port , --dccp-types , --dccp-option
--src-group , --dst-group , --dscp , --dscp-class , --dst-len , --dst-opts
--ecn-tcp-cwr , --ecn-tcp-ece , --ecn-ip-ect , --espspi , --fragid
--fraglen , --fragres , --fragfirst , --fragmore , --fraglast
--hashlimit-upto , --hashlimit-above , --hashlimit-burst , --hashlimit-mode
--hashlimit-srcmask , --hashlimit-dstmask , --hashlimit-name
--hashlimit-htable-size , --hashlimit-htable-max , --hashlimit-htable-expire
--hashlimit-htable-gcinterval , --hbh-len , --hbh-opts , --helper , --hl-eq
--hl-lt , --hl-gt , --icmp-type , --icmpv6-type , --src-range , --dst-range
--soft , --header , --ipvs , --vproto , --vaddr , --vport , --vdir
--vmethod , --vportctl , --length , --limit , --limit-burst , --mac-source
--mh-type , --sports --source-ports =source-ports
--dports --destination-ports =destination-ports , --ports , --nfacct-name
--genre , --ttl , --log , --uid-owner , --gid-owner , --socket-exists
--physdev-in , --physdev-out , --physdev-is-in , --physdev-is-out
--physdev-is-bridged , --pkt-type , --dir , --pol , --strict , --reqid
--spi , --proto , --mode , --tunnel-src , --tunnel-dst , --next , --quota
--rateest , --rateest1 , --rateest2 , --rateest-delta , --rateest-bps
--rateest-bps1 , --rateest-bps2 , --rateest-pps , --rateest-pps1
--rateest-pps2 , --rateest-lt , --rateest-gt , --rateest-eq , --rateest-name
--rateest-interval , --rateest-ewma , --realm , --name , --set , --rsource
--rdest , --mask , --rcheck , --update , --remove , --seconds , --reap
--hitcount , --rttl , --loose , --validmark , --accept-local , --invert
--rt-type , --rt-segsleft , --rt-len , --rt-0-res , --rt-0-addrs
--rt-0-not-strict , --chunk-types , --match-set , --return-nomatch
--update-counters , --update-subcounters , --packets-eq , --packets-lt
--packets-gt , --bytes-eq , --bytes-lt , --bytes-gt , --transparent
--nowildcard , --state , --probability , --every , --packet , --algo
--from , --to , --string , --hex-string , --tcp-flags , --syn , --tcp-option
--mss , --datestart , --datestop , --timestart , --timestop , --monthdays
--weekdays , --contiguous , --kerneltz , --utc , --localtz , --tos
--ttl-eq , --ttl-gt , --ttl-lt , --u32 , --condition , --mac , --lower-limit
--upper-limit , --src-cc --source-country =source-country
--dst-cc --destination-country =destination-country , --enabled , --disabled
--iface , --dev-in , --dev-out , --up , --down , --broadcast , --loopback
--pointtopoint , --running , --noarp , --arp , --promisc , --multicast
--dynamic , --lower-up , --dormant , --edk , --kazaa , --gnu , --dc , --bit
--apple , --soul , --winmx , --ares , --debug , --flags , --any , --layer3
--layer4 , --layer5 , --stealth , --synscan , --cnscan , --grscan
--psd-weight-threshold , --psd-delay-threshold , --psd-lo-ports-weight
--psd-hi-ports-weight , --grow , --no-change , --packets , --knockports
--time , --autoclose , --checkip , --type , --checksum-fill , --set-class
--new , --hashmode , --clustermac , --total-nodes , --local-node
--hash-init , --set-xmark , --save-mark , --restore-mark , --and-mark
--or-mark , --xor-mark , --set-mark , --nfmask , --ctmask , --save
--restore , --notrack , --ctevents , --expevents , --zone , --timeout
--to-destination , --random , --persistent , --src-pfx , --dst-pfx
--set-dscp , --set-dscp-class , --ecn-tcp-remove , --hl-set , --hl-dec
--hl-inc , --hmark-tuple , --hmark-mod , --hmark-offset , --hmark-src-prefix
--hmark-dst-prefix , --hmark-sport-mask , --hmark-dport-mask
--hmark-spi-mask , --hmark-proto-mask , --hmark-rnd , --led-trigger-id
--led-delay , --led-always-blink , --log-level , --log-prefix
--log-tcp-sequence , --log-tcp-options , --log-ip-options , --log-uid
--to-ports , --nflog-group , --nflog-prefix , --nflog-range
--nflog-threshold , --queue-num , --queue-balance , --queue-bypass
--queue-cpu-fanout , --rateest-ewmalog , --reject-with , --nodst , --selctx
--add-set , --del-set , --exist , --to-source , --set-mss
--clamp-mss-to-pmtu , --strip-options , --gateway , --set-tos , --and-tos
--or-tos , --xor-tos , --on-port , --on-ip , --tproxy-mark , --ttl-set
--ttl-dec , --ttl-inc , --ulog-nlgroup , --ulog-prefix , --ulog-cprange
--ulog-qthreshold , --addr , --tname , --delude , --tarpit , --set-mac
--prefix , --reuse , --static , --and-mask , --or-mask , --shift
--honeypot , --reset
`
