# Shared by the engine scripts of this folder (sourced; not an engine itself, so up.sh skips it).

# A TCP port on 127.0.0.1 that nothing listens on right now.
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
