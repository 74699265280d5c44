# Records the catalogs Puppet 7.23 compiles for the test nodes of the
# environments in test/fixtures/puppet-compile/environments (the modules
# ntp, motd, concat, sudo with stdlib; the manifest-ordering fixtures) into
# test/fixtures/puppet-compile/catalogs/ENV/NODE.json, which
# test/puppet/compile/environments.test.ts compares with tend's compile.
#
#   nice -n 10 ruby scripts/record-puppet-catalogs.rb [--out DIR] [ENV/NODE ...]
#
# One Ruby process compiles them all as `puppet catalog compile NODE
# --environment ENV --facts_terminus json` does (the catalog indirection's
# compiler terminus), with a scratch confdir and vardir under the system temp
# dir (removed at the end) and the fixture directory as the code directory
# (environmentpath $codedir/environments, basemodulepath $codedir/modules).
# Facts: test/fixtures/puppet-compile/facts/NODE.json (fixed Debian 12 facts).
#
# Each NODE.json holds "catalog" (Puppet's catalog JSON without version,
# catalog_uuid and code_id, the code directory in resources' `file` written
# `$codedir/`) or "error" (Puppet's message), and "messages" (every notice,
# warning and error logged while compiling, with its source; not the
# "Compiled catalog" line). Each compile's time in this process goes to stderr.
$VERBOSE = nil
require 'puppet'
require 'json'
require 'tmpdir'
require 'fileutils'

ROOT = File.expand_path('..', __dir__)
FIXTURES = File.join(ROOT, 'test', 'fixtures', 'puppet-compile')

# The environments and their test nodes.
NODES = {
  'production' => %w[ntp.example.com motd.example.com motdtpl.example.com concat.example.com sudo.example.com],
  'sitedir' => %w[testnode],
  'sitedir2' => %w[testnode],
  'bytewise' => %w[testnode],
}.freeze

args = ARGV.dup
outdir = args[0] == '--out' ? (args.shift && args.shift) : File.join(FIXTURES, 'catalogs')
only = args

scratch = Dir.mktmpdir('tend-record-catalogs-')
at_exit { FileUtils.rm_rf(scratch) }
factsdir = File.join(scratch, 'var', 'server_data', 'facts')
FileUtils.mkdir_p(factsdir)
Dir.glob(File.join(FIXTURES, 'facts', '*.json')).each { |f| FileUtils.cp(f, factsdir) }
FileUtils.mkdir_p(File.join(scratch, 'etc'))
File.write(File.join(scratch, 'etc', 'puppet.conf'), <<~CONF)
  [main]
  vardir = #{scratch}/var
  codedir = #{FIXTURES}
  environmentpath = $codedir/environments
  basemodulepath = $codedir/modules
  logdir = #{scratch}/var/log
  rundir = #{scratch}/var/run
  publicdir = #{scratch}/var/public
  ssldir = #{scratch}/etc/ssl
  vendormoduledir = #{scratch}/vendor_modules
  cadir = #{scratch}/etc/ca
CONF

Puppet.initialize_settings(['--confdir', File.join(scratch, 'etc'), '--facts_terminus', 'json', '--log_level', 'notice'])
Puppet.settings.preferred_run_mode = :server
Puppet::ApplicationSupport.push_application_context(Puppet::Util::RunMode[:server])
Puppet::Resource::Catalog.indirection.terminus_class = :compiler
Puppet::Util::Log.level = :notice

prefix = "#{FIXTURES}/"
neutral = lambda do |h|
  (h['resources'] || []).each do |r|
    r['file'] = "$codedir/#{r['file'][prefix.length..]}" if r['file'].is_a?(String) && r['file'].start_with?(prefix)
  end
  h
end

summary = Hash.new(0)
NODES.each do |envname, nodes|
  nodes.each do |node|
    next unless only.empty? || only.include?("#{envname}/#{node}")
    Puppet[:environment] = envname
    out = { 'environment' => envname, 'node' => node }
    logs = []
    coll = Puppet::Test::LogCollector.new(logs)
    Puppet::Util::Log.newdestination(coll)
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    begin
      cat = Puppet::Resource::Catalog.indirection.find(node, :environment => Puppet.lookup(:environments).get!(envname))
      h = JSON.parse(Puppet::Util::Json.dump(cat.to_data_hash))
      %w[version catalog_uuid code_id].each { |k| h.delete(k) }
      out['catalog'] = neutral.call(h)
      summary['catalog'] += 1
    rescue StandardError => e
      out['error'] = e.message.gsub(prefix, '$codedir/')
      summary['error'] += 1
    ensure
      Puppet::Util::Log.close(coll)
    end
    seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
    out['messages'] = logs.select { |l| %i[notice warning err].include?(l.level) }
                          .reject { |l| l.message.to_s.start_with?('Compiled catalog') }
                          .map { |l| { 'level' => l.level.to_s, 'source' => l.source.to_s, 'message' => l.message.to_s.gsub(prefix, '$codedir/') } }
    FileUtils.mkdir_p(File.join(outdir, envname))
    File.write(File.join(outdir, envname, "#{node}.json"), JSON.pretty_generate(out) + "\n")
    $stderr.puts format('%s/%s %s %.3fs', envname, node, out.key?('catalog') ? 'ok' : 'error', seconds)
  end
end
puts summary.inspect
