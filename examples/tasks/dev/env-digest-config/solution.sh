sed 's|^log_dir = .*|log_dir = logs|' digest.ini.example >digest.ini
